"""Built-in file and search tools on a real directory tree."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path

import pytest

from quorum.domain.tools import RiskLevel, ToolCall, ToolResult
from quorum.infrastructure.tools.builtin import BUILTIN_TOOLS, BuiltinToolSource


async def run(source: BuiltinToolSource, name: str, **arguments: object) -> ToolResult:
    return await source.execute(ToolCall(native_id="c", name=name, arguments=arguments))


async def test_the_tools_and_their_default_risks_are_those_the_issue_names(source: BuiltinToolSource) -> None:
    tools = {t.name: t for t in await source.list_tools()}
    assert {n for n, t in tools.items() if t.risk is RiskLevel.LOW} == {
        "read_file",
        "glob_search",
        "grep_search",
        "list_dir",
    }
    assert {n for n, t in tools.items() if t.risk is RiskLevel.HIGH} == {
        "write_file",
        "edit_file",
        "run_command",
    }
    params = {t.name: [(p.name, p.required) for p in t.parameters] for t in BUILTIN_TOOLS}
    assert params["read_file"] == [("path", True), ("offset", False), ("limit", False)]
    assert params["grep_search"] == [
        ("pattern", True),
        ("path", False),
        ("glob", False),
        ("max_results", False),
    ]
    assert params["edit_file"] == [("path", True), ("old_text", True), ("new_text", True)]
    assert params["run_command"] == [("command", True), ("cwd", False), ("timeout", False)]


ESCAPES = [
    ("read_file", {"path": "../outside/secret.txt"}, "climbs out"),
    ("read_file", {"path": "src/../../outside/secret.txt"}, "climbs out"),
    ("read_file", {"path": "{outside}/secret.txt"}, "is outside"),
    ("read_file", {"path": "/etc/passwd"}, "is outside"),
    ("read_file", {"path": "escape_link"}, "symbolic link"),
    ("read_file", {"path": "escape_dir/secret.txt"}, "symbolic link"),
    ("write_file", {"path": "../outside/new.txt", "content": "x"}, "climbs out"),
    ("write_file", {"path": "escape_dir/new.txt", "content": "x"}, "symbolic link"),
    ("write_file", {"path": "escape_link", "content": "overwritten"}, "symbolic link"),
    ("edit_file", {"path": "escape_link", "old_text": "top", "new_text": "no"}, "symbolic link"),
    ("list_dir", {"path": ".."}, "climbs out"),
    ("list_dir", {"path": "escape_dir"}, "symbolic link"),
    ("glob_search", {"pattern": "*", "path": "escape_dir"}, "symbolic link"),
    ("glob_search", {"pattern": "../outside/*"}, "must be relative"),
    ("glob_search", {"pattern": "/etc/*"}, "must be relative"),
    ("grep_search", {"pattern": "secret", "path": "../outside"}, "climbs out"),
    ("grep_search", {"pattern": "secret", "path": "escape_link"}, "symbolic link"),
    ("run_command", {"command": "ls", "cwd": "../outside"}, "climbs out"),
    ("run_command", {"command": "ls", "cwd": "escape_dir"}, "symbolic link"),
]


@pytest.mark.parametrize(("tool", "arguments", "message"), ESCAPES)
async def test_paths_leading_out_of_the_workspace_are_refused(
    source: BuiltinToolSource, outside: Path, tool: str, arguments: dict[str, str], message: str
) -> None:
    arguments = {k: v.format(outside=outside) for k, v in arguments.items()}
    outcome = await run(source, tool, **arguments)
    assert outcome.is_error
    assert message in outcome.output
    assert "top secret" not in outcome.output
    assert sorted(p.name for p in outside.iterdir()) == ["secret.txt"]
    assert (outside / "secret.txt").read_text() == "top secret\n"


async def test_absolute_paths_and_links_inside_the_workspace_are_fine(
    source: BuiltinToolSource, workspace: Path
) -> None:
    assert (await run(source, "read_file", path=str(workspace / "README.md"))).output.startswith("# Demo")
    assert (await run(source, "read_file", path="inner_link")).output.startswith("# Demo")
    assert (await run(source, "read_file", path="src/../README.md")).output.startswith("# Demo")


async def test_read_file_slices_lines_and_says_where_it_is(source: BuiltinToolSource) -> None:
    assert (await run(source, "read_file", path="README.md")).output == "# Demo\nline two\nline three\n"
    sliced = await run(source, "read_file", path="README.md", offset=2, limit=1)
    assert sliced.output == "line two\n\n[lines 2-2 of README.md; more follows, read on with offset]"
    past = await run(source, "read_file", path="README.md", offset=10)
    assert past.is_error and "past the end" in past.output


@pytest.mark.parametrize(
    ("path", "message"),
    [("missing.txt", "no such file"), ("src", "is a directory"), ("image.bin", "binary file")],
)
async def test_read_file_failures_are_clear(source: BuiltinToolSource, path: str, message: str) -> None:
    outcome = await run(source, "read_file", path=path)
    assert message in outcome.output
    assert "\x00" not in outcome.output


async def test_binary_files_are_summarised_not_dumped(source: BuiltinToolSource) -> None:
    outcome = await run(source, "read_file", path="image.bin")
    assert outcome.output == "[binary file image.bin, 130 bytes; not shown]"


async def test_a_huge_file_is_capped_with_a_note(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "big.txt").write_text("".join(f"line {i}\n" for i in range(100_000)))
    outcome = await run(source, "read_file", path="big.txt")
    assert len(outcome.output.encode()) < 2200
    assert outcome.output.startswith("line 0\nline 1\n")
    assert "more follows" in outcome.output or "truncated" in outcome.output


async def test_write_file_creates_parents_and_overwrites(source: BuiltinToolSource, workspace: Path) -> None:
    created = await run(source, "write_file", path="new/dir/file.txt", content="héllo")
    assert created.output == "created new/dir/file.txt (6 bytes)"
    assert (workspace / "new/dir/file.txt").read_text() == "héllo"
    again = await run(source, "write_file", path="new/dir/file.txt", content="bye")
    assert again.output.startswith("overwrote")
    assert (workspace / "new/dir/file.txt").read_text() == "bye"


async def test_edit_file_needs_a_unique_match(source: BuiltinToolSource, workspace: Path) -> None:
    ok = await run(source, "edit_file", path="README.md", old_text="line two", new_text="LINE 2")
    assert not ok.is_error and "line 2" in ok.output
    assert (workspace / "README.md").read_text() == "# Demo\nLINE 2\nline three\n"
    many = await run(source, "edit_file", path="README.md", old_text="e", new_text="x")
    assert many.is_error and "occurs 4 times" in many.output
    none = await run(source, "edit_file", path="README.md", old_text="absent", new_text="x")
    assert none.is_error and "not found" in none.output
    assert (workspace / "README.md").read_text() == "# Demo\nLINE 2\nline three\n"


async def test_list_dir_marks_directories_and_links(source: BuiltinToolSource) -> None:
    lines = (await run(source, "list_dir")).output.splitlines()
    assert lines[0].startswith(".: ")
    assert "src/" in lines and ".git/" in lines
    assert any(line.startswith("README.md  (") for line in lines)
    assert any(line.startswith("escape_link@ -> ") for line in lines)
    assert (await run(source, "list_dir", path="README.md")).is_error


async def test_glob_search_recurses_and_skips_git(source: BuiltinToolSource) -> None:
    assert (await run(source, "glob_search", pattern="**/*.py")).output == "src/main.py\nsrc/pkg/util.py"
    assert (await run(source, "glob_search", pattern="*.py", path="src/pkg")).output == "src/pkg/util.py"
    assert ".git" not in (await run(source, "glob_search", pattern="**/*")).output
    assert "no paths match" in (await run(source, "glob_search", pattern="*.rs")).output


async def test_grep_search_skips_binary_git_and_links_out(source: BuiltinToolSource) -> None:
    outcome = await run(source, "grep_search", pattern="needle")
    assert outcome.output.splitlines() == [
        "src/main.py:2:     return 'needle'",
        "src/notes.txt:1: a needle here",
        "src/pkg/util.py:2: needle = 2",
        "[1 binary files skipped]",
    ]
    secret = await run(source, "grep_search", pattern="top secret")
    assert "no matches" in secret.output and "1 binary files skipped" in secret.output


async def test_grep_search_glob_case_and_limit(source: BuiltinToolSource) -> None:
    py = await run(source, "grep_search", pattern="(?i)needle", glob="*.py")
    assert py.output.splitlines() == [
        "src/main.py:2:     return 'needle'",
        "src/pkg/util.py:1: NEEDLE = 1",
        "src/pkg/util.py:2: needle = 2",
    ]
    one = await run(source, "grep_search", pattern="needle", max_results=1)
    assert one.output == "src/main.py:2:     return 'needle'\n[stopped at 1 matches]\n[1 binary files skipped]"
    in_file = await run(source, "grep_search", pattern="NEEDLE", path="src/pkg/util.py")
    assert in_file.output == "src/pkg/util.py:1: NEEDLE = 1"
    bad = await run(source, "grep_search", pattern="(unclosed")
    assert bad.is_error and "not a valid regular expression" in bad.output


async def test_a_named_pipe_is_refused_without_waiting_for_a_writer(source: BuiltinToolSource, workspace: Path) -> None:
    """Before, read_file opened the FIFO and waited for a writer: the call (and the process) hung."""
    os.mkfifo(workspace / "pipe")
    async with asyncio.timeout(30):  # a guard against a hang, not a timing assertion
        outcome = await run(source, "read_file", path="pipe")
    assert outcome.is_error
    assert outcome.output == "'pipe' is a named pipe (FIFO); read_file only works on regular files"
