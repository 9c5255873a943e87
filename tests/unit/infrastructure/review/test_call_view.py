"""The call preview: writes and edits as diffs against the workspace, commands with their directory, titles."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quorum.domain.tools import ToolCall
from quorum.infrastructure.review.call_view import (
    MAX_READ_BYTES,
    MAX_TITLE,
    FileChange,
    call_lines,
    file_change,
    title_of,
)
from quorum.infrastructure.tools.workspace import Workspace


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(native_id="c", name=name, arguments=arguments)


@pytest.fixture
def workspace(tmp_path: Path) -> Workspace:
    root = tmp_path / "ws"
    root.mkdir()
    return Workspace(root)


def test_write_over_an_existing_file_is_a_diff(workspace: Workspace) -> None:
    (workspace.root / "notes.md").write_text("one\ntwo\nthree\n")
    lines = call_lines(call("write_file", path="notes.md", content="one\n2\nthree\nfour\n"), workspace)
    assert lines == [
        "overwrites notes.md (3 lines → 4 lines)",
        "--- a/notes.md",
        "+++ b/notes.md",
        "@@ -1,3 +1,4 @@",
        " one",
        "-two",
        "+2",
        " three",
        "+four",
    ]


def test_a_new_file_shows_its_lines(workspace: Workspace) -> None:
    lines = call_lines(call("write_file", path="docs/new.md", content="# Title\n\nbody"), workspace)
    assert lines == ["new file docs/new.md, 3 lines", "+# Title", "+", "+body"]


def test_identical_content_and_a_changed_final_newline(workspace: Workspace) -> None:
    (workspace.root / "a.txt").write_text("a\n")
    same = call_lines(call("write_file", path="a.txt", content="a\n"), workspace)
    assert same == ["overwrites a.txt (1 line → 1 line): the content is identical"]
    lines = call_lines(call("write_file", path="a.txt", content="a"), workspace)
    assert lines[-3:] == ["-a", "+a", "\\ No newline at end of file"]


def test_a_path_outside_the_workspace_is_never_read(workspace: Workspace, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("TOP SECRET\n")
    (workspace.root / "link").symlink_to(tmp_path)
    for path in ("../secret.txt", str(secret), "link/secret.txt"):
        lines = call_lines(call("write_file", path=path, content="x\n"), workspace)
        assert "not read; the tool will refuse it" in lines[0] and "the workspace" in lines[0]
        assert not any("TOP SECRET" in line for line in lines)
        edit = call_lines(call("edit_file", path=path, old_text="TOP", new_text="x"), workspace)
        assert "not read" in edit[0] and not any("SECRET" in line for line in edit)


def test_binary_directory_and_fifo_targets_are_described_not_read(workspace: Workspace) -> None:
    (workspace.root / "blob").write_bytes(b"\x00\x01")
    (workspace.root / "dir").mkdir()
    os.mkfifo(workspace.root / "fifo")  # reading it would block the prompt
    assert "binary file" in call_lines(call("write_file", path="blob", content="x"), workspace)[0]
    assert "is a directory" in call_lines(call("write_file", path="dir", content="x"), workspace)[0]
    assert "not a regular file" in call_lines(call("write_file", path="fifo", content="x"), workspace)[0]


def test_edit_is_a_diff_of_the_whole_file(workspace: Workspace) -> None:
    (workspace.root / "app.py").write_text("".join(f"line {i}\n" for i in range(1, 11)))
    lines = call_lines(call("edit_file", path="app.py", old_text="line 5\n", new_text="five\nfive b\n"), workspace)
    assert lines[0] == "edits app.py (10 lines → 11 lines)"
    assert lines[3] == "@@ -2,7 +2,8 @@"
    assert [line for line in lines if line[:1] in "+-" and line[:3] not in ("---", "+++")] == [
        "-line 5",
        "+five",
        "+five b",
    ]


@pytest.mark.parametrize(("content", "says"), [("x\n", "does not occur"), ("a\na\n", "occurs 2 times")])
def test_an_edit_that_will_fail_says_why_and_shows_both_texts(workspace: Workspace, content: str, says: str) -> None:
    (workspace.root / "f.txt").write_text(content)
    lines = call_lines(call("edit_file", path="f.txt", old_text="a\n", new_text="b\n"), workspace)
    assert says in lines[0] and "will refuse" in lines[0]
    assert lines[1:] == ["old_text:", "  a", "new_text:", "  b"]
    missing = call_lines(call("edit_file", path="none.txt", old_text="a", new_text="b"), workspace)
    assert "none.txt does not exist" in missing[0]


def test_a_command_and_its_directory(workspace: Workspace) -> None:
    (workspace.root / "sub").mkdir()
    assert call_lines(call("run_command", command="make test"), workspace) == [
        "command:",
        "  make test",
        f"in: {workspace.root} (the workspace)",
    ]
    lines = call_lines(call("run_command", command="ls\nrm -rf x", cwd="sub", timeout=5), workspace)
    assert lines[:4] == ["command:", "  ls", "  rm -rf x", f"in: {workspace.root / 'sub'} (sub in the workspace)"]
    assert lines[4:] == ["other arguments:", "  {", '    "timeout": 5', "  }"]
    outside = call_lines(call("run_command", command="ls", cwd="/"), workspace)
    assert "outside the workspace" in outside[-1]


def test_other_tools_show_indented_json() -> None:
    assert call_lines(call("mcp__x__y", a=1, b=["z"]), None) == [
        "arguments:",
        "  {",
        '    "a": 1,',
        '    "b": [',
        '      "z"',
        "    ]",
        "  }",
    ]


def test_file_change_is_the_previewed_write_or_edit_as_data(workspace: Workspace) -> None:
    (workspace.root / "a.txt").write_text("one two\n")
    new = file_change("write_file", {"path": "docs/new.txt", "content": "hi"}, workspace)
    assert new == FileChange(workspace.root / "docs" / "new.txt", "docs/new.txt", None, "hi")
    edit = file_change("edit_file", {"path": "a.txt", "old_text": "two", "new_text": "2"}, workspace)
    assert edit is not None and (edit.shown, edit.old, edit.new) == ("a.txt", "one two\n", "one 2\n")
    for failing in ("missing", "", "o"):  # not once in the file: the edit will fail, nothing to show
        assert file_change("edit_file", {"path": "a.txt", "old_text": failing, "new_text": "x"}, workspace) is None
    assert file_change("read_file", {"path": "a.txt"}, workspace) is None
    assert file_change("write_file", {"path": "a.txt", "content": 3}, workspace) is None
    assert file_change("write_file", {"path": "a.txt", "content": "x"}, None) is None


def test_file_change_reads_what_the_lines_read_and_nothing_more(workspace: Workspace, tmp_path: Path) -> None:
    (tmp_path / "secret.txt").write_text("TOP SECRET\n")
    (workspace.root / "blob").write_bytes(b"\x00\x01")
    (workspace.root / "big.txt").write_text("x" * (MAX_READ_BYTES + 1))
    (workspace.root / "dir").mkdir()
    for path in ("../secret.txt", "blob", "big.txt", "dir"):
        arguments = {"path": path, "content": "x"}
        assert file_change("write_file", arguments, workspace) is None, path
        assert call_lines(call("write_file", **arguments), workspace)[0].startswith("writes 1 line; "), path


def test_a_title_is_one_short_line() -> None:
    assert title_of("read_file", {"path": "docs/a.md"}) == "Read docs/a.md"
    assert title_of("list_dir", {}) == "List ."
    assert title_of("mcp__time__get_current_time", {}) == "time: get_current_time"
    assert title_of("run_command", {"command": "make\ntest"}) == "Run make test"
    long = title_of("run_command", {"command": "x" * 500})
    assert len(long) == MAX_TITLE and long.endswith("…")


BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"


def test_bidi_controls_in_commands_paths_and_arguments_are_shown_escaped(workspace: Workspace) -> None:
    escaped = "\\u202a\\u202b\\u202c\\u202d\\u202e\\u2066\\u2067\\u2068\\u2069\\u200e\\u200f\\u061c"
    previews = {
        "command": call_lines(call("run_command", command=f"cat {BIDI}a.txt"), workspace),
        "write": call_lines(call("write_file", path=f"x{BIDI}.exe", content=f"{BIDI}\n"), workspace),
        "other": call_lines(call("mcp__s__t", q=f"{BIDI}\x1b[2J"), workspace),
        "title": [title_of("run_command", {"command": f"cat {BIDI}a.txt"})],
    }
    for name, lines in previews.items():
        text = "\n".join(lines)
        assert not any(char in text for char in BIDI + "\x1b"), name
        assert escaped in text, name
    assert f"  cat {escaped}a.txt" in previews["command"]
    assert f"new file x{escaped}.exe, 1 line" in previews["write"]
    assert previews["title"] == [f"Run cat {escaped}a.txt"]
