"""Built-in file tools against hostile workspaces: special files, hard links, huge lines, odd names."""

from __future__ import annotations

import asyncio
import errno
import io
import os
import socket
import stat
import threading
from pathlib import Path

import pytest

from quorum.domain.tools import ToolCall, ToolResult
from quorum.infrastructure.tools.blocking import NEVER, StopFlag, Stopped
from quorum.infrastructure.tools.builtin import BuiltinToolSource
from quorum.infrastructure.tools.files import atomic_write, search
from quorum.infrastructure.tools.files.read_lines import read_lines
from quorum.infrastructure.tools.workspace import Workspace


async def run(source: BuiltinToolSource, name: str, **arguments: object) -> ToolResult:
    async with asyncio.timeout(60):  # a guard against a hang, not a timing assertion
        return await source.execute(ToolCall(native_id="c", name=name, arguments=arguments))


@pytest.fixture
def fifo(workspace: Path) -> Path:
    os.mkfifo(workspace / "src" / "pipe.txt")
    return workspace / "src" / "pipe.txt"


async def test_searches_skip_a_named_pipe_and_count_it(source: BuiltinToolSource, fifo: Path) -> None:
    grep = await run(source, "grep_search", pattern="needle", path="src")
    assert grep.output.splitlines() == [
        "src/main.py:2:     return 'needle'",
        "src/notes.txt:1: a needle here",
        "src/pkg/util.py:2: needle = 2",
        "[1 special files (named pipes, sockets, devices) skipped]",
    ]
    glob = await run(source, "glob_search", pattern="src/*.txt")
    assert glob.output == "src/notes.txt\n[1 special files (named pipes, sockets, devices) skipped]"
    listing = await run(source, "list_dir", path="src")
    assert "pipe.txt  (a named pipe (FIFO))" in listing.output.splitlines()


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {}),
        ("write_file", {"content": "x"}),
        ("edit_file", {"old_text": "a", "new_text": "b"}),
        ("grep_search", {"pattern": "x"}),
    ],
)
async def test_every_file_tool_refuses_or_skips_a_named_pipe(
    source: BuiltinToolSource, fifo: Path, tool: str, arguments: dict[str, str]
) -> None:
    outcome = await run(source, tool, path="src/pipe.txt", **arguments)
    if tool == "grep_search":
        assert "1 special files" in outcome.output
    else:
        assert outcome.is_error
        assert "is a named pipe (FIFO)" in outcome.output
    assert stat.S_ISFIFO(os.lstat(fifo).st_mode)  # never replaced by a regular file


async def test_a_socket_is_refused(source: BuiltinToolSource, workspace: Path) -> None:
    server = socket.socket(socket.AF_UNIX)
    try:
        server.bind(str(workspace / "sock"))
        outcome = await run(source, "read_file", path="sock")
    finally:
        server.close()
    assert outcome.is_error and "is a socket" in outcome.output


async def test_a_hard_link_to_an_outside_file_never_carries_a_write_out(
    source: BuiltinToolSource, workspace: Path, outside: Path
) -> None:
    os.link(outside / "secret.txt", workspace / "linked.txt")
    read = await run(source, "read_file", path="linked.txt")
    assert read.output == "top secret\n"  # reading a hard-linked file stays allowed
    written = await run(source, "write_file", path="linked.txt", content="changed\n")
    assert written.output == "overwrote linked.txt (8 bytes); it had 1 other hard link(s), which keep the old content"
    os.link(outside / "secret.txt", workspace / "linked2.txt")
    edited = await run(source, "edit_file", path="linked2.txt", old_text="top", new_text="no")
    assert not edited.is_error
    assert (outside / "secret.txt").read_text() == "top secret\n"
    assert (workspace / "linked.txt").read_text() == "changed\n"
    assert (workspace / "linked2.txt").read_text() == "no secret\n"
    assert os.stat(outside / "secret.txt").st_nlink == 1


async def test_writes_keep_the_mode_and_leave_no_temporary_file(source: BuiltinToolSource, workspace: Path) -> None:
    script = workspace / "run.sh"
    script.write_text("echo one\n")
    script.chmod(0o750)
    await run(source, "edit_file", path="run.sh", old_text="one", new_text="two")
    await run(source, "write_file", path="run.sh", content="echo three\n")
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert script.read_text() == "echo three\n"
    assert not [p for p in workspace.iterdir() if ".quorum-" in p.name]


async def test_a_failed_write_leaves_the_old_file_whole(
    source: BuiltinToolSource, workspace: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    def disk_full(src: object, dst: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(atomic_write.os, "replace", disk_full)
    outcome = await run(source, "write_file", path="README.md", content="half")
    assert outcome.is_error and "No space left" in outcome.output
    assert (workspace / "README.md").read_text() == "# Demo\nline two\nline three\n"
    assert not [p for p in workspace.iterdir() if ".quorum-" in p.name]


async def test_a_line_longer_than_the_cap_is_cut_with_a_note(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "long.txt").write_bytes(b"x" * 1_000_000 + b"\nsecond\n")
    first = await run(source, "read_file", path="long.txt")
    assert first.output.startswith("x" * 1000)
    kept = len(first.output.split("\n", 1)[0])
    assert kept > 1000
    assert f"line 1 is longer than the output limit: showed its first {kept} bytes" in first.output
    assert "[lines 1-1 of long.txt; more follows, read on with offset]" in first.output
    assert len(first.output.encode()) <= 2000
    second = await run(source, "read_file", path="long.txt", offset=2)
    assert second.output == "second\n\n[lines 2-2 of long.txt]"


async def test_a_cut_never_splits_a_character(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "wide.txt").write_text("é" * 5000)
    outcome = await run(source, "read_file", path="wide.txt")
    assert "\ufffd" not in outcome.output
    assert outcome.output.startswith("é" * 800)


def test_reading_stops_at_the_size_the_file_had_when_opened() -> None:
    """A file growing while read: nothing past the size at open is read, so the read ends."""
    handle = io.BufferedReader(io.BytesIO(b"one\ntwo\nthree\n" + b"grown\n" * 1000))  # type: ignore[arg-type]
    lines = read_lines(handle, 14, 1, None, 10_000, NEVER)
    assert lines.data == b"one\ntwo\nthree\n"
    assert not lines.more


async def test_a_catastrophic_pattern_is_linear_under_re2(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a" * 30 + "\n" + "a" * 29 + "b\n")
    outcome = await run(source, "grep_search", pattern="(a+)+$", path="a.txt")
    assert outcome.output == "a.txt:1: " + "a" * 30


async def test_the_python_fallback_finds_backreferences(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "twice.txt").write_text("abab\nabba\n")
    outcome = await run(source, "grep_search", pattern=r"(ab)\1", path="twice.txt")
    assert outcome.output.splitlines()[0] == "twice.txt:1: abab"
    assert "searched with Python's re instead" in outcome.output


async def test_a_catastrophic_fallback_pattern_is_cut_by_the_budget(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a" * 40 + "\n")
    (workspace / "b.txt").write_text("ab\n")
    outcome = await run(source, "grep_search", pattern=r"^(a+)+$(?<=b)|ab(?=$)", glob="[ab].txt")
    assert outcome.output.splitlines()[0] == "b.txt:1: ab"
    assert "the 1 s time budget per file cut the search of 1 files (a.txt)" in outcome.output


def _worker_pids() -> set[int]:
    found = set()
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        try:
            if b"regex_worker.py" in Path(f"/proc/{pid}/cmdline").read_bytes():
                found.add(int(pid))
        except OSError:
            continue
    return found


def test_stopping_a_fallback_search_kills_its_child(workspace: Path) -> None:
    (workspace / "a.txt").write_text("a" * 60 + "\n")
    before = _worker_pids()
    stop = StopFlag()
    outcome: dict[str, object] = {}

    def search_forever() -> None:
        try:
            search.grep_search(Workspace(workspace), {"pattern": r"^(a+)+$(?<=b)", "path": "a.txt"}, stop)
        except Stopped:
            outcome["stopped"] = True

    thread = threading.Thread(target=search_forever, daemon=True)
    thread.start()
    for _ in range(3000):  # wait (bounded) until the child runs, then cancel the call
        if _worker_pids() - before:
            break
        threading.Event().wait(0.01)
    child = _worker_pids() - before
    assert child
    stop.set()
    thread.join(30)
    assert outcome == {"stopped": True}
    assert not (_worker_pids() & child)


async def test_link_loops_and_directories_named_like_files(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / "loop_a").symlink_to(workspace / "loop_b")
    (workspace / "loop_b").symlink_to(workspace / "loop_a")
    (workspace / "data.json").mkdir()
    loop = await run(source, "read_file", path="loop_a")
    assert loop.is_error and "symbolic link loop" in loop.output
    assert "is a directory" in (await run(source, "read_file", path="data.json")).output
    assert "is a directory" in (await run(source, "write_file", path="data.json", content="{}")).output
    grep = await run(source, "grep_search", pattern="Demo")
    assert grep.output.splitlines()[0] == "README.md:1: # Demo"
    assert "2 unreadable files skipped" in grep.output


async def test_names_that_are_not_utf8_are_shown_escaped(source: BuiltinToolSource, workspace: Path) -> None:
    (workspace / os.fsdecode(b"caf\xe9.txt")).write_text("needle\n")
    grep = await run(source, "grep_search", pattern="needle", path=".", glob="caf*")
    assert grep.output == "caf\\xe9.txt:1: needle"
    glob = await run(source, "glob_search", pattern="caf*")
    assert glob.output == "caf\\xe9.txt"
    listing = await run(source, "list_dir")
    assert "caf\\xe9.txt  (7 bytes)" in listing.output
    for text in (grep.output, glob.output, listing.output):
        text.encode("utf-8")  # printable and storable


async def test_text_that_is_not_valid_unicode_is_refused(source: BuiltinToolSource, workspace: Path) -> None:
    outcome = await run(source, "write_file", path="lone.txt", content="\ud800")
    assert outcome.is_error and "content is not valid Unicode text" in outcome.output
    assert not (workspace / "lone.txt").exists()
