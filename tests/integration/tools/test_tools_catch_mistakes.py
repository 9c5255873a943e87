"""Tools that catch a weak model's mistakes (issue 34): no-op edits, unread files, broken structure, guessed paths.

Each test calls the real ``BuiltinToolSource`` on a real directory; the read-before-write tests
run it inside a run's record of successful calls, as ``RunAgent`` sets it.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from quorum.application.succeeded_calls import SucceededCalls, current_succeeded_calls
from quorum.domain.messages import Message
from quorum.domain.tools import ToolCall, ToolResult
from quorum.infrastructure.tools.builtin import BuiltinToolSource
from quorum.infrastructure.tools.settings import ToolsSettings
from tests.integration.tools.conftest import builtin_source


async def run(source: BuiltinToolSource, name: str, **arguments: object) -> ToolResult:
    return await source.execute(ToolCall(native_id=f"c-{name}", name=name, arguments=arguments))


@pytest.fixture
def in_a_run() -> Iterator[SucceededCalls]:
    """The record of a run's successful calls, empty: what a fresh run starts with."""
    calls = SucceededCalls()
    token = current_succeeded_calls.set(calls)
    yield calls
    current_succeeded_calls.reset(token)


async def test_a_no_op_edit_is_refused_and_the_file_untouched(source: BuiltinToolSource, workspace: Path) -> None:
    before = (workspace / "README.md").read_bytes()
    result = await run(source, "edit_file", path="README.md", old_text="line two", new_text="line two")
    assert result.is_error
    assert "nothing would change" in result.output and "new_text" in result.output
    assert (workspace / "README.md").read_bytes() == before


async def test_an_ambiguous_edit_says_where_the_text_occurs_and_what_to_do(
    source: BuiltinToolSource, workspace: Path
) -> None:
    (workspace / "app.py").write_text("from mathx import calc\n\n\ndef area(w, h):\n    return calc(w, h)\n")
    result = await run(source, "edit_file", path="app.py", old_text="calc", new_text="compute")
    assert result.is_error and "occurs 2 times in 'app.py', at lines 1 and 5" in result.output
    assert "its own edit_file call" in result.output
    assert "calc" in (workspace / "app.py").read_text()


async def test_an_edit_of_text_not_in_the_file_says_how_to_add_lines(
    source: BuiltinToolSource, workspace: Path
) -> None:
    (workspace / "geometry.py").write_text("def hypot(a, b):\n    return math.sqrt(a * a + b * b)\n")
    result = await run(source, "edit_file", path="geometry.py", old_text="import math", new_text="import math\n")
    assert result.is_error and "was not found in 'geometry.py'" in result.output
    assert "put an existing line in old_text" in result.output


async def test_an_edit_shows_the_edited_lines_numbered_with_context(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "long.txt").write_text("".join(f"line {n}\n" for n in range(1, 11)))
    result = await run(source, "edit_file", path="long.txt", old_text="line 5\n", new_text="five\nFIVE\n")
    assert not result.is_error, result.output
    assert result.output.splitlines() == [
        "edited long.txt: replaced 1 occurrence at line 5",
        "long.txt now reads (changed lines marked >):",
        "3   line 3",
        "4   line 4",
        "5 > five",
        "6 > FIVE",
        "7   line 6",
        "8   line 7",
    ]


async def test_the_json_key_edit_that_stays_valid_shows_what_it_did(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "config.json").write_text('{\n  "max_retries": 3,\n  "timeout": 10\n}\n')
    result = await run(source, "edit_file", path="config.json", old_text="max_retries", new_text="5")
    assert not result.is_error
    assert '2 >   "5": 3,' in result.output  # the wrong edit is visible to the model at once


async def test_an_edit_that_breaks_json_is_warned_about(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "config.json").write_text('{"max_retries": 3, "timeout": 10}\n')
    result = await run(
        source, "edit_file", path="config.json", old_text='"max_retries": 3,', new_text='"max_retries": 5'
    )
    assert not result.is_error
    assert "warning: config.json is no longer valid JSON" in result.output and "fix it with edit_file" in result.output
    with pytest.raises(ValueError):
        json.loads((workspace / "config.json").read_text())  # the edit was made: the warning says so


@pytest.mark.parametrize(
    ("name", "content", "kind"),
    [("a.json", "{", "JSON"), ("a.toml", "key = ", "TOML"), ("a.yaml", "key: [1, 2", "YAML")],
)
async def test_writing_a_structured_file_that_does_not_parse_is_warned_about(
    source: BuiltinToolSource, name: str, content: str, kind: str
) -> None:
    result = await run(source, "write_file", path=name, content=content)
    assert not result.is_error
    assert f"warning: {name} is not valid {kind}" in result.output


async def test_a_file_broken_before_the_edit_is_not_warned_about(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "bad.json").write_text("{oops\n")
    result = await run(source, "edit_file", path="bad.json", old_text="oops", new_text="still bad")
    assert not result.is_error and "warning" not in result.output


async def test_a_missing_path_is_answered_with_the_closest_existing_one(
    source: BuiltinToolSource, workspace: Path
) -> None:
    (workspace / "config").mkdir()
    (workspace / "config" / "db.conf").write_text("port = 5432\n")
    (workspace / "config" / "database.cfg").write_text("port = 5432\n")
    result = await run(source, "read_file", path="config/database.conf")
    assert result.is_error
    assert "no such file: 'config/database.conf'" in result.output
    assert "the closest existing one is 'config/database.cfg'" in result.output
    assert "list_dir 'config'" in result.output


async def test_a_missing_path_with_nothing_close_says_how_to_look(source: BuiltinToolSource) -> None:
    result = await run(source, "read_file", path="nowhere/zzzz.qqq")
    assert result.is_error
    assert result.output.endswith("list_dir to see what exists, or glob_search '**/zzzz.qqq' to find it")


async def test_a_missing_directory_names_the_closest_directory(source: BuiltinToolSource) -> None:
    result = await run(source, "list_dir", path="src/pkgs")
    assert result.is_error and "the closest existing one is 'src/pkg'" in result.output


async def test_an_edit_of_a_file_the_run_has_not_read_is_refused_with_its_content(
    source: BuiltinToolSource, workspace: Path, in_a_run: SucceededCalls
) -> None:
    before = (workspace / "README.md").read_bytes()
    result = await run(source, "edit_file", path="README.md", old_text="line two", new_text="line 2")
    assert result.is_error
    assert "'README.md' exists and this run has not read it. Its content (now read):\n# Demo\nline two" in result.output
    assert "Call edit_file again" in result.output
    assert (workspace / "README.md").read_bytes() == before
    # What the refusal showed counts from the next response on, not for another call of this one.
    overwrite = await run(source, "write_file", path="README.md", content="gone")
    assert overwrite.is_error and "has not read it" in overwrite.output
    assert (workspace / "README.md").read_bytes() == before
    in_a_run.next_response()
    edited = await run(source, "edit_file", path="README.md", old_text="line two", new_text="line 2")
    assert not edited.is_error, edited.output
    assert (workspace / "README.md").read_text() == "# Demo\nline 2\nline three\n"


async def test_a_large_unread_file_is_refused_with_the_read_to_make(
    source: BuiltinToolSource, workspace: Path, in_a_run: SucceededCalls
) -> None:
    (workspace / "big.txt").write_text("x = 1\n" * 4000)
    result = await run(source, "edit_file", path="big.txt", old_text="x = 1", new_text="x = 2")
    assert result.is_error and "has not read it: call read_file 'big.txt' first" in result.output
    assert "x = 1\nx = 1" not in result.output
    in_a_run.next_response()
    again = await run(source, "edit_file", path="big.txt", old_text="x = 1", new_text="x = 2")
    assert again.is_error and "has not read it" in again.output  # nothing was shown, so nothing counts


async def test_after_a_read_the_edit_goes_through(
    source: BuiltinToolSource, workspace: Path, in_a_run: SucceededCalls
) -> None:
    in_a_run.add(ToolCall(native_id="r", name="read_file", arguments={"path": "./README.md"}))
    result = await run(source, "edit_file", path="README.md", old_text="line two", new_text="line 2")
    assert not result.is_error, result.output
    assert (workspace / "README.md").read_text() == "# Demo\nline 2\nline three\n"


async def test_a_new_file_needs_no_read(source: BuiltinToolSource, workspace: Path, in_a_run: SucceededCalls) -> None:
    result = await run(source, "write_file", path="fresh.txt", content="new\n")
    assert not result.is_error and (workspace / "fresh.txt").read_text() == "new\n"


async def test_reads_of_the_history_a_run_continues_count(source: BuiltinToolSource, workspace: Path) -> None:
    read = ToolCall(native_id="old", name="read_file", arguments={"path": "README.md"})
    failed = ToolCall(native_id="bad", name="read_file", arguments={"path": "src/main.py"})
    history = [
        Message(role="user", content=()),
        Message(role="assistant", content=(read, failed)),
        Message(
            role="user",
            content=(
                ToolResult(call_id="old", name="read_file", output="..."),
                ToolResult(call_id="bad", name="read_file", output="denied", is_error=True),
            ),
        ),
    ]
    token = current_succeeded_calls.set(SucceededCalls.of(history))
    try:
        ok = await run(source, "edit_file", path="README.md", old_text="line two", new_text="line 2")
        refused = await run(source, "edit_file", path="src/main.py", old_text="needle", new_text="pin")
    finally:
        current_succeeded_calls.reset(token)
    assert not ok.is_error and refused.is_error and "has not read it" in refused.output


async def test_read_before_write_false_turns_the_check_off(workspace: Path, in_a_run: SucceededCalls) -> None:
    source = builtin_source(workspace, ToolsSettings(read_before_write=False))
    result = await run(source, "edit_file", path="README.md", old_text="line two", new_text="line 2")
    assert not result.is_error, result.output
