"""Subagent definitions: Markdown files with front matter and ``[agents.NAME]`` tables; clear errors."""

from __future__ import annotations

from pathlib import Path

import pytest

from quorum.domain.errors import ConfigurationError
from quorum.domain.subagents import DEFAULT_TOOLS
from quorum.infrastructure.agents import SubagentTable, load_subagents


def _write(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)


def test_files_and_tables_define_subagents_the_workspace_winning(tmp_path: Path) -> None:
    user, workspace = tmp_path / "user", tmp_path / "ws"
    _write(user / "agents" / "reader.md", "---\ndescription: user reader\n---\nuser prompt\n")
    _write(
        workspace / ".quorum" / "agents" / "reader.md",
        "---\ndescription: ws reader\ntools: [read_file]\nmax_tool_turns: 2\nreasoning: low\n---\n\nws prompt\n",
    )
    tables = {"finder": SubagentTable(description="finds", prompt="find")}

    found = load_subagents(tables, user_dir=user, workspace=workspace)

    reader = found["reader"]
    assert (reader.description, reader.prompt, reader.tools) == ("ws reader", "ws prompt", ("read_file",))
    assert (reader.max_tool_turns, reader.reasoning) == (2, "low")
    assert found["finder"].tools == DEFAULT_TOOLS and found["finder"].source == "quorum.toml [agents.finder]"


@pytest.mark.parametrize(
    ("text", "said"),
    [
        ("no front matter\n", "front matter"),
        ("---\ndescription: x\n", "closing"),
        ("---\ndescription: [x\n---\n", "YAML"),
        ("---\n- a\n---\n", "mapping"),
        ("---\ntools: [read_file]\n---\n", "description"),
        ("---\ndescription: x\ncolour: red\n---\n", "colour"),
        ("---\ndescription: x\nmax_tool_turns: 0\n---\n", "max_tool_turns"),
        ("---\ndescription: x\nprompt: y\n---\n", "body"),
    ],
)
def test_a_bad_file_is_a_configuration_error_naming_it(tmp_path: Path, text: str, said: str) -> None:
    path = tmp_path / ".quorum" / "agents" / "bad.md"
    _write(path, text)

    with pytest.raises(ConfigurationError) as raised:
        load_subagents({}, user_dir=None, workspace=tmp_path)

    assert str(path) in str(raised.value) and said in str(raised.value)


def test_a_bad_name_is_refused(tmp_path: Path) -> None:
    with pytest.raises(ConfigurationError, match="not a subagent name"):
        load_subagents({"bad name": SubagentTable(description="x")}, user_dir=None, workspace=tmp_path)
