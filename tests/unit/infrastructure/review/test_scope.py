"""Scopes of "always approve": a plain command's prefix, a file tool in one directory, or a tool."""

from __future__ import annotations

from pathlib import Path

import pytest

from quorum.domain.tools import ToolCall
from quorum.infrastructure.review.scope import plain_command_words, scope_for
from quorum.infrastructure.tools.workspace import Workspace


def command(text: str) -> ToolCall:
    return ToolCall(native_id="c", name="run_command", arguments={"command": text})


def write(path: str, tool: str = "write_file") -> ToolCall:
    return ToolCall(native_id="c", name=tool, arguments={"path": path, "content": "x"})


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ("git commit -m x", ["git", "commit", "-m", "x"]),
        ("git commit -m 'fix: a; b'", ["git", "commit", "-m", "fix: a; b"]),
        ('git commit -m "fix #1!"', ["git", "commit", "-m", "fix #1!"]),
        ("  ls  ", ["ls"]),
        ("git commit -m x; rm y", None),
        ("git commit -m x && rm y", None),
        ("ls | sh", None),
        ("ls > out", None),
        ("echo $HOME", None),
        ('git commit -m "$(rm -rf ~)"', None),  # expansion inside double quotes still runs
        ("git commit -m `id`", None),
        ("rm *.txt", None),
        ("make test\nrm x", None),
        ("ls\rrm", None),
        ("./build.sh", None),
        ("/bin/rm x", None),
        ("LD_PRELOAD=x.so ls", None),
        ("echo 'unclosed", None),
        ("(ls)", None),
        ("rm x \\; y", None),
        ("", None),
    ],
)
def test_plain_command_words(text: str, words: list[str] | None) -> None:
    assert plain_command_words(text) == words


@pytest.mark.parametrize(
    ("text", "label"),
    [
        ("git commit -m x", '"git commit …"'),
        ("make test", '"make test …"'),
        ("ls", '"ls …"'),
        ("ls -la docs", '"ls …"'),
        ("rm x", '"rm x …"'),
        ("python scripts/gen.py --fast", '"python scripts/gen.py …"'),
        ("python -c 'import os'", None),  # the code is the argument
        ("sh -c 'ls'", None),
        ("sudo make install", None),
        ("env X=1 rm y", None),
        ("git commit -m x; rm y", None),
    ],
)
def test_command_scope_label(text: str, label: str | None) -> None:
    scope = scope_for(command(text), None)
    assert (scope.label if scope else None) == label


def test_a_command_scope_covers_plain_commands_with_the_same_first_words() -> None:
    scope = scope_for(command("git commit -m x"), None)
    assert scope is not None
    assert scope.covers(command("git commit -m y"), None)
    assert scope.covers(command("git  'commit' --amend"), None)
    assert not scope.covers(command("rm x"), None)
    assert not scope.covers(command("git commit -m x; rm y"), None)
    assert not scope.covers(command("git push"), None)
    assert not scope.covers(command("git"), None)
    assert not scope.covers(ToolCall(native_id="c", name="other_tool", arguments={"command": "git commit"}), None)


def test_a_file_scope_is_the_tool_on_files_directly_in_one_directory(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path)
    (tmp_path / "docs" / "api").mkdir(parents=True)
    scope = scope_for(write("docs/a.md"), workspace)
    assert scope is not None and scope.label == "write_file in docs/"
    assert scope.covers(write("docs/b.md"), workspace)
    assert scope.covers(write("./docs/../docs/c.md"), workspace)
    assert scope.covers(write(str(tmp_path / "docs" / "d.md")), workspace)
    assert not scope.covers(write("docs/../x.md"), workspace)  # normalised first: that is the root
    assert not scope.covers(write("docs/api/e.md"), workspace)  # not subdirectories
    assert not scope.covers(write("x.md"), workspace)
    assert not scope.covers(write("../docs/a.md"), workspace)  # outside: never covered
    assert not scope.covers(write("docs/b.md", tool="edit_file"), workspace)
    assert scope_for(write("top.md"), workspace).label == "write_file in ./"  # type: ignore[union-attr]


def test_no_file_scope_outside_the_workspace_or_without_one(tmp_path: Path) -> None:
    workspace = Workspace(tmp_path / "ws")
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "out").symlink_to(tmp_path)
    assert scope_for(write("../x"), workspace) is None
    assert scope_for(write("/etc/passwd"), workspace) is None
    assert scope_for(write("out/x"), workspace) is None  # through a symbolic link
    assert scope_for(write("docs/x"), None) is None


def test_other_tools_are_scoped_to_the_tool() -> None:
    call = ToolCall(native_id="c", name="mcp__gh__push", arguments={"branch": "main"})
    scope = scope_for(call, None)
    assert scope is not None and scope.label == "mcp__gh__push" and scope.covers(call, None)
