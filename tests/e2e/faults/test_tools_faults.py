"""Fault suite, tools part: hostile workspaces never crash, hang or leak ``quorum run``.

Every case runs the real CLI through ``run_fault`` (exit code, ``run_finished`` last, no
traceback, no process left, wall time within the configured timeout plus a margin) with a
scripted model making one or two tool calls, then checks the tool result and the files.
"""

from __future__ import annotations

import contextlib
import os
import socket
import stat
import threading
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.faults.harness import FaultResult, run_fault, scripted

TIMEOUT = 3.0
GENEROUS = 120.0
"""The run's timeout for cases that prove a bound on work (bytes read, entries listed), not on time:
a slow or loaded machine still passes them, and a broken bound fails them by what they count."""


def run_calls(
    cli: Cli, *calls: tuple[str, dict[str, Any]], yes: bool = False, timeout: float = TIMEOUT, **kwargs: Any
) -> FaultResult:
    """One turn making ``calls`` in parallel, then a final answer; returns the checked result.

    ``timeout`` is the run's (and, less one second, each tool call's) timeout in seconds.
    """
    # One turn of calls: the read-before-write guard (tested in test_tools_catch_mistakes) would refuse a
    # write of a file read in the same turn; these tests are about what the tools do with hostile files.
    cli.write(
        "quorum.toml",
        f"[agent]\ntimeout_seconds = {timeout:g}\ntool_timeout_seconds = {timeout - 1:g}\n"
        "[tools]\nread_before_write = false\n",
    )
    turn = {"tool_calls": [{"name": name, "arguments": arguments} for name, arguments in calls]}
    model = scripted(cli, [turn, {"text": "done"}])
    flags = ["--yes"] if yes else []
    return run_fault(cli, "run", "--json", *flags, "--model", model, "task", timeout=timeout, **kwargs)


def results(result: FaultResult) -> list[dict[str, Any]]:
    """The tool results in the order the calls were made (parallel calls finish in any order)."""
    events = result.events()
    order = [e["id"] for e in events if e["type"] == "tool_call"]
    found = {e["call_id"]: e for e in events if e["type"] == "tool_result"}
    assert set(found) == set(order)
    return [found[call_id] for call_id in order]


def test_a_catastrophic_regex_answers_at_once(cli: Cli) -> None:
    cli.write("a.txt", "a" * 30 + "\n" + "a" * 29 + "b\n")
    result = run_calls(cli, ("grep_search", {"pattern": "(a+)+$"}), expect_code=0)
    assert results(result)[0]["output"] == "a.txt:1: " + "a" * 30


def test_a_catastrophic_fallback_regex_is_cut_not_hung(cli: Cli) -> None:
    cli.write("a.txt", "a" * 60 + "\n")
    result = run_calls(cli, ("grep_search", {"pattern": r"^(a+)+$(?<=b)"}), expect_code=0)
    output = results(result)[0]["output"]
    # The 1 s budget cuts it, or on a very loaded machine the 2 s tool timeout comes first.
    assert "time budget per file cut the search of 1 files (a.txt)" in output or "timed out" in output


@pytest.mark.parametrize(
    ("tool", "arguments"),
    [
        ("read_file", {"path": "pipe"}),
        ("grep_search", {"pattern": "x"}),
        ("write_file", {"path": "pipe", "content": "into the pipe"}),
        ("edit_file", {"path": "pipe", "old_text": "a", "new_text": "b"}),
    ],
)
def test_a_named_pipe_never_hangs_a_file_tool(cli: Cli, tool: str, arguments: dict[str, str]) -> None:
    os.mkfifo(cli.workspace / "pipe")
    result = run_calls(cli, (tool, arguments), yes=True, expect_code=0)
    output = results(result)[0]["output"]
    assert "named pipe" in output
    assert stat.S_ISFIFO(os.lstat(cli.workspace / "pipe").st_mode)


def test_a_socket_is_refused_and_skipped(cli: Cli) -> None:
    server = socket.socket(socket.AF_UNIX)
    server.bind(str(cli.workspace / "sock"))
    try:
        result = run_calls(cli, ("read_file", {"path": "sock"}), ("grep_search", {"pattern": "x"}), expect_code=0)
    finally:
        server.close()
    read, grep = results(result)
    assert read["is_error"] and "is a socket" in read["output"]
    assert "1 special files" in grep["output"]


def test_a_400_mib_single_line_is_read_in_bounded_memory(cli: Cli) -> None:
    chunk = b"q" * (1 << 20)
    with (cli.workspace / "huge.txt").open("wb") as handle:
        for _ in range(400):
            handle.write(chunk)
    result = run_calls(cli, ("read_file", {"path": "huge.txt"}), expect_code=0, memory_limit_bytes=600_000_000)
    output = results(result)[0]["output"]
    assert output.startswith("q" * 40_000)
    assert "line 1 is longer than the output limit" in output
    assert "huge.txt is 419430400 bytes" in output


def test_a_hard_link_to_an_outside_file_is_written_in_the_workspace_only(cli: Cli) -> None:
    outside = cli.workspace.parent / "outside.txt"
    outside.write_text("outside stays\n")
    os.link(outside, cli.workspace / "linked.txt")
    result = run_calls(cli, ("write_file", {"path": "linked.txt", "content": "replaced\n"}), yes=True, expect_code=0)
    assert "other hard link(s), which keep the old content" in results(result)[0]["output"]
    assert outside.read_text() == "outside stays\n"
    assert (cli.workspace / "linked.txt").read_text() == "replaced\n"


def _being_read_by_another_process(path: Path) -> bool:
    """Whether another process has ``path`` open and has read from it (Linux ``/proc``).

    A read position past 0 means the reader has begun reading, so it took the file's size before.
    """
    for fd_dir in Path("/proc").glob("[0-9]*/fd"):
        if fd_dir.parent.name == str(os.getpid()):
            continue
        with contextlib.suppress(OSError):
            for fd in fd_dir.iterdir():
                if os.readlink(fd) == str(path):
                    info = (fd_dir.parent / "fdinfo" / fd.name).read_text()
                    if int(info.split("pos:", 1)[1].split()[0]) > 0:
                        return True
    return False


def test_a_file_growing_while_read_does_not_keep_the_read_going(cli: Cli) -> None:
    """The read stops at the size the file had when opened: it counts exactly the lines there were.

    The file starts with a fixed number of lines; once quorum is reading it, a writer appends empty
    lines far faster than any reader can count them (up to a cap on disk use). A read that followed
    the growth would either time out or count the appended lines; the bound is on the lines read,
    so a slow machine passes as well as a fast one.
    """
    initial_lines, chunk, cap = 1_000_000, b"\n" * (1 << 20), 32 << 20
    path = cli.write("log.txt", "first line\n" + "\n" * (initial_lines - 1))
    stop, grew = threading.Event(), threading.Event()

    def grow() -> None:
        while not stop.is_set() and not _being_read_by_another_process(path):
            stop.wait(0.002)
        with path.open("ab") as handle:
            while not stop.wait(0.005) and handle.tell() < cap:
                handle.write(chunk)
                handle.flush()
                grew.set()

    writer = threading.Thread(target=grow, daemon=True)
    writer.start()
    try:
        result = run_calls(cli, ("read_file", {"path": "log.txt", "offset": 10**9}), timeout=GENEROUS, expect_code=0)
    finally:
        stop.set()
        writer.join(10)
    output = results(result)[0]["output"]
    assert grew.is_set(), "the file never grew while quorum read it"
    assert f"offset 1000000000 is past the end of 'log.txt' ({initial_lines} lines)" in output


def test_a_directory_named_like_a_file(cli: Cli) -> None:
    (cli.workspace / "data.json").mkdir()
    result = run_calls(
        cli,
        ("read_file", {"path": "data.json"}),
        ("write_file", {"path": "data.json", "content": "{}"}),
        ("edit_file", {"path": "data.json", "old_text": "a", "new_text": "b"}),
        yes=True,
        expect_code=0,
    )
    assert all(r["is_error"] and "is a directory" in r["output"] for r in results(result))
    assert (cli.workspace / "data.json").is_dir()


def test_paths_with_a_nul_and_names_that_are_not_utf8(cli: Cli) -> None:
    (cli.workspace / os.fsdecode(b"caf\xe9.txt")).write_text("needle\n")
    result = run_calls(
        cli,
        ("read_file", {"path": "a\x00b"}),
        ("grep_search", {"pattern": "needle"}),
        ("list_dir", {}),
        expect_code=0,
    )
    nul, grep, listing = results(result)
    assert nul["is_error"] and "NUL byte" in nul["output"]
    assert grep["output"] == "caf\\xe9.txt:1: needle"
    assert "caf\\xe9.txt  (7 bytes)" in listing["output"]


def test_symbolic_link_loops(cli: Cli) -> None:
    (cli.workspace / "loop_a").symlink_to("loop_b")
    (cli.workspace / "loop_b").symlink_to("loop_a")
    cli.write("ok.txt", "needle\n")
    result = run_calls(
        cli,
        ("read_file", {"path": "loop_a"}),
        ("grep_search", {"pattern": "needle"}),
        ("glob_search", {"pattern": "**/*"}),
        expect_code=0,
    )
    read, grep, glob = results(result)
    assert read["is_error"] and "symbolic link loop" in read["output"]
    assert grep["output"].startswith("ok.txt:1: needle")
    assert "ok.txt" in glob["output"]


def test_a_ten_thousand_line_match_flood_is_capped(cli: Cli) -> None:
    cli.write("flood.txt", "match me\n" * 10_000)
    result = run_calls(cli, ("grep_search", {"pattern": "match", "max_results": 100_000}), expect_code=0)
    output = results(result)[0]["output"]
    assert output.startswith("flood.txt:1: match me\nflood.txt:2: match me")
    assert len(output.encode()) < 51_000 and "[output truncated:" in output


def test_a_huge_directory_for_glob(cli: Cli) -> None:
    many = cli.workspace / "many"
    many.mkdir()
    for i in range(20_000):
        (many / f"f{i:05}.txt").touch()
    result = run_calls(
        cli,
        ("glob_search", {"pattern": "**/*.txt"}),
        ("glob_search", {"pattern": "**/*.rs"}),
        timeout=GENEROUS,  # the bound proven is on the paths shown (1000 of 20000), not on seconds
        expect_code=0,
    )
    capped, none = results(result)
    assert capped["output"].startswith("many/f00000.txt\n")
    assert "[showed the first 1000 of 20000 matches; narrow the pattern]" in capped["output"]
    assert none["output"] == "no paths match '**/*.rs' under ."


def test_binary_files_are_summarised_and_skipped(cli: Cli) -> None:
    (cli.workspace / "blob.bin").write_bytes(os.urandom(1 << 20) + b"\x00needle")
    result = run_calls(
        cli,
        ("read_file", {"path": "blob.bin"}),
        ("grep_search", {"pattern": "needle"}),
        ("edit_file", {"path": "blob.bin", "old_text": "needle", "new_text": "x"}),
        yes=True,
        expect_code=0,
    )
    read, grep, edit = results(result)
    assert read["output"] == f"[binary file blob.bin, {(1 << 20) + 7} bytes; not shown]"
    assert "1 binary files skipped" in grep["output"]
    assert edit["is_error"] and "binary file" in edit["output"]


def test_a_vanished_file_behind_a_dangling_link(cli: Cli, tmp_path: Path) -> None:
    """A file deleted from under a link: the search counts it unreadable, read_file says it is missing."""
    (cli.workspace / "gone.txt").symlink_to(tmp_path / "ws" / "vanished.txt")
    cli.write("here.txt", "needle\n")
    result = run_calls(cli, ("grep_search", {"pattern": "needle"}), ("read_file", {"path": "gone.txt"}), expect_code=0)
    grep, read = results(result)
    assert grep["output"].startswith("here.txt:1: needle")
    assert "1 unreadable files skipped" in grep["output"]
    assert read["is_error"] and "no such file" in read["output"]
