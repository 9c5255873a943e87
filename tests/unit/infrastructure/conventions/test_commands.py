"""Prompt commands: Markdown files become /NAME; built-in names refused; $ARGUMENTS replaced."""

from __future__ import annotations

from pathlib import Path

import pytest

from quorum.infrastructure.conventions.commands import (
    BUILTIN_COMMANDS,
    CommandDir,
    find_commands,
    invocation,
)


def _write(directory: Path, name: str, text: str) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / name
    path.write_text(text)
    return path


def test_front_matter_and_arguments(tmp_path: Path) -> None:
    _write(
        tmp_path / "cmds",
        "Fix-Todo.md",
        "---\ndescription: Fix the TODOs of a file\nmodel: local:big\nplan: true\n---\nFix the TODOs in $ARGUMENTS.\n",
    )
    _write(tmp_path / "cmds", "explain.md", "# Explain the code\nExplain it simply.\n")

    found = find_commands([CommandDir(tmp_path / "cmds", tmp_path, "workspace")])

    fix = found.get("/fix-todo")
    assert fix is not None and (fix.description, fix.model, fix.plan) == ("Fix the TODOs of a file", "local:big", True)
    assert fix.prompt("app.py") == "Fix the TODOs in app.py."
    explain = found.get("EXPLAIN")
    assert explain is not None and explain.description == "Explain the code" and not explain.plan
    assert explain.prompt("") == "# Explain the code\nExplain it simply."
    assert explain.prompt("utils.py") == "# Explain the code\nExplain it simply.\n\nutils.py"


def test_a_command_named_like_a_built_in_is_refused_with_the_reason(tmp_path: Path) -> None:
    _write(tmp_path / "cmds", "model.md", "switch to a model of my choice")
    found = find_commands([CommandDir(tmp_path / "cmds", tmp_path, "workspace")])
    assert found.get("model") is None
    assert "/model is a built-in command" in found.refused["model"]


def test_the_first_place_wins_and_bad_files_are_reported(tmp_path: Path) -> None:
    _write(tmp_path / "ws", "deploy.md", "WORKSPACE")
    _write(tmp_path / "user", "deploy.md", "USER")
    _write(tmp_path / "user", "broken.md", "---\ndescription: [unclosed\n---\nbody")
    _write(tmp_path / "user", "open.md", "---\ndescription: x\nbody without end")
    _write(tmp_path / "user", "planned.md", "---\nplan: sometimes\n---\nbody")
    found = find_commands(
        [CommandDir(tmp_path / "ws", tmp_path, "workspace"), CommandDir(tmp_path / "user", None, "user")]
    )
    deploy = found.get("deploy")
    assert deploy is not None and deploy.body == "WORKSPACE" and deploy.source == "workspace"
    assert set(found.refused) == {"broken", "open", "planned"}
    assert "not valid YAML" in found.refused["broken"] and "never closed" in found.refused["open"]


def test_a_link_out_of_the_repository_is_refused(tmp_path: Path) -> None:
    outside = _write(tmp_path / "outside", "x.md", "SECRET")
    (tmp_path / "repo" / "cmds").mkdir(parents=True)
    (tmp_path / "repo" / "cmds" / "leak.md").symlink_to(outside)
    found = find_commands([CommandDir(tmp_path / "repo" / "cmds", tmp_path / "repo", "workspace")])
    assert found.get("leak") is None and "links outside" in found.refused["leak"]


def test_yaml_tags_building_objects_are_not_run(tmp_path: Path) -> None:
    _write(tmp_path / "cmds", "evil.md", "---\ndescription: !!python/object/apply:os.system ['touch PWNED']\n---\nx")
    found = find_commands([CommandDir(tmp_path / "cmds", tmp_path, "workspace")])
    assert "evil" in found.refused and not (Path.cwd() / "PWNED").exists()


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("/fix-todo app.py", ("fix-todo", "app.py")),
        ("  /Fix-Todo  a b\nc ", ("fix-todo", "a b\nc")),
        ("/review", ("review", "")),
        ("/etc/passwd is odd", None),
        ("//fix-todo", None),
        ("fix /this", None),
        ("/ spaced", None),
    ],
)
def test_invocation(text: str, expected: tuple[str, str] | None) -> None:
    assert invocation(text) == expected


def test_the_built_in_names_cover_chat_and_the_acp_agent() -> None:
    from quorum.acp.modes import COMMANDS as ACP_COMMANDS
    from quorum.cli.chat.slash import COMMANDS as CHAT_COMMANDS

    assert {c.name.lstrip("/") for c in CHAT_COMMANDS} | {name for name, _, _ in ACP_COMMANDS} == BUILTIN_COMMANDS
