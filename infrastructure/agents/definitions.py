"""Reading subagent definitions: Markdown files with YAML front matter, and ``[agents.NAME]`` tables.

A file ``NAME.md`` in the user config dir's ``agents/`` or the workspace's ``.quorum/agents/``::

    ---
    description: Reads the code and answers questions about it
    tools: [read_file, grep_search]
    model: openai:gpt-4.1-mini
    ---
    You are a careful code reader. ...

defines the subagent ``NAME`` (its body is the system prompt); a table of quorum.toml does the
same with ``prompt`` for the body. Where one name is defined more than once, the later place
wins: the user's files, then quorum.toml's tables, then the workspace's files. Every problem is
a ``ConfigurationError`` naming the file or key, never a traceback.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml
from pydantic import Field, ValidationError

from quorum.domain.errors import ConfigurationError
from quorum.domain.responses import ReasoningLevel
from quorum.domain.subagents import DEFAULT_TOOLS, NAME, Subagent
from quorum.infrastructure.config.sections import Section

AGENTS_DIR = Path(".quorum") / "agents"
"""The workspace's folder of subagent files (the user config dir has ``agents/``)."""


class SubagentTable(Section):
    """``[agents.NAME]`` of quorum.toml, and the front matter of an agent file (without ``prompt``).

    Attributes:
        description: what the delegating model is told about the subagent (required).
        prompt: its system prompt (a file's body instead).
        tools: names or globs of the tools it may use; unset: the low-risk built-ins.
        model: its model; unset: the delegating run's.
        max_tool_turns: its tool turn limit; unset: the delegating run's.
        reasoning: its reasoning level; unset: the delegating run's.
    """

    description: str = Field(min_length=1)
    prompt: str = ""
    tools: list[str] | None = None
    model: str | None = None
    max_tool_turns: int | None = Field(None, ge=1)
    reasoning: ReasoningLevel | None = None

    def subagent(self, name: str, source: str) -> Subagent:
        """The definition this table makes for ``name``."""
        tools = DEFAULT_TOOLS if self.tools is None else tuple(self.tools)
        data = self.model_dump(exclude={"tools"})
        return Subagent(name=name, tools=tools, source=source, **data)


def load_subagents(
    tables: Mapping[str, SubagentTable], *, user_dir: Path | None, workspace: Path
) -> dict[str, Subagent]:
    """Every subagent defined for ``workspace``, by name (see the module docstring for the order).

    Raises:
        ConfigurationError: a file that cannot be read or parsed, a bad name or field.
    """
    found: dict[str, Subagent] = {}
    if user_dir is not None:
        found.update(_folder(user_dir / "agents"))
    for name, table in tables.items():
        _check_name(name, f"quorum.toml [agents.{name}]")
        found[name] = table.subagent(name, f"quorum.toml [agents.{name}]")
    found.update(_folder(workspace / AGENTS_DIR))
    return found


def _folder(folder: Path) -> dict[str, Subagent]:
    if not folder.is_dir():
        return {}
    return {path.stem: read_file(path) for path in sorted(folder.glob("*.md")) if path.is_file()}


def read_file(path: Path) -> Subagent:
    """The subagent ``path`` (``NAME.md``) defines.

    Raises:
        ConfigurationError: unreadable, no front matter, bad YAML, a bad name or field.
    """
    source = str(path)
    _check_name(path.stem, source)
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise ConfigurationError(f"cannot read the agent file: {error}", source=source) from None
    front, body = _split(text, source)
    try:
        table = SubagentTable.model_validate({**front, "prompt": body.strip()})
    except ValidationError as error:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'front matter'}: {e['msg']}" for e in error.errors())
        raise ConfigurationError(f"bad agent definition: {problems}", source=source) from None
    return table.subagent(path.stem, source)


def _split(text: str, source: str) -> tuple[dict[str, Any], str]:
    """The front matter (a YAML mapping between ``---`` lines) and the body of an agent file."""
    lines = text.lstrip("\ufeff").splitlines(keepends=True)
    if not lines or lines[0].strip() != "---":
        raise ConfigurationError(
            "an agent file starts with YAML front matter between '---' lines (at least a description:)",
            source=source,
        )
    end = next((i for i in range(1, len(lines)) if lines[i].strip() == "---"), None)
    if end is None:
        raise ConfigurationError("the front matter has no closing '---' line", source=source)
    try:
        front = yaml.safe_load("".join(lines[1:end])) or {}
    except yaml.YAMLError as error:
        raise ConfigurationError(f"the front matter is not valid YAML: {error}", source=source) from None
    if not isinstance(front, dict):
        raise ConfigurationError("the front matter is not a mapping of keys to values", source=source)
    if "prompt" in front:
        raise ConfigurationError("the system prompt is the file's body, not a 'prompt' key", source=source)
    return front, "".join(lines[end + 1 :])


def _check_name(name: str, source: str) -> None:
    if not NAME.match(name):
        raise ConfigurationError(
            f"{name!r} is not a subagent name (letters, digits, '_', '-', '.', at most 64)", source=source
        )
