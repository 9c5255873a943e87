"""Subagents: named agents the run's model may hand a task to (the ``delegate`` tool).

A ``Subagent`` is a definition, wherever it was written (a Markdown file in ``.quorum/agents/``
or the user config dir's ``agents/``, an ``[agents.NAME]`` table of quorum.toml). A delegation
runs it as a child run of the run that delegated: its own model, system prompt and tools, under
the parent's review (docs/subagents.md).
"""

from __future__ import annotations

import fnmatch
import re
from collections.abc import Iterable

from pydantic import BaseModel, ConfigDict, Field

from quorum.domain.responses import ReasoningLevel

DELEGATE = "delegate"
"""The name of the tool that hands a task to a subagent (offered when at least one is defined)."""

DEFAULT_TOOLS: tuple[str, ...] = ("read_file", "glob_search", "grep_search", "list_dir")
"""The tools of a subagent whose definition names none: the low-risk built-ins."""

NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]{0,63}$")
"""What a subagent may be called (a file's stem, a table's key)."""


class Subagent(BaseModel):
    """One subagent definition.

    Attributes:
        name: what the model passes as ``agent`` to ``delegate``.
        description: what the delegating model is told about it.
        prompt: its system prompt (the Markdown body, or ``prompt``).
        tools: names or globs (``fnmatch``) of the tools it may use; ``DEFAULT_TOOLS`` when unset.
            ``delegate`` never matches: a subagent cannot delegate (depth 1).
        model: its model (``provider:model`` or an alias); None: the delegating run's.
        max_tool_turns: its tool turn limit; None: the delegating run's.
        reasoning: its reasoning level; None: the delegating run's.
        source: where it was defined (a file, ``quorum.toml [agents.NAME]``), for messages.
    """

    model_config = ConfigDict(frozen=True)

    name: str = Field(pattern=NAME.pattern)
    description: str = Field(min_length=1)
    prompt: str = ""
    tools: tuple[str, ...] = DEFAULT_TOOLS
    model: str | None = None
    max_tool_turns: int | None = Field(None, ge=1)
    reasoning: ReasoningLevel | None = None
    source: str = ""

    def allows(self, tool: str) -> bool:
        """Whether this subagent may use ``tool`` (never ``delegate``)."""
        return tool != DELEGATE and any(fnmatch.fnmatchcase(tool, pattern) for pattern in self.tools)

    def allowed(self, names: Iterable[str]) -> list[str]:
        """The names among ``names`` this subagent may use, in their order."""
        return [name for name in names if self.allows(name)]
