"""run_command with real processes: exit codes, capture, caps, timeouts that kill the group.

These run approved calls (on the host, as a review let them); the sandboxed path has its own tests.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import warnings
from pathlib import Path

from quorum.domain.tools import Clearance, RiskLevel, ToolCall, ToolResult
from quorum.infrastructure.tools.builtin import BuiltinToolSource
from quorum.infrastructure.tools.settings import CommandEnvSettings, ToolsSettings
from quorum.infrastructure.tools.shell.risk import classify_command
from tests.integration.tools.conftest import builtin_source


async def run(source: BuiltinToolSource, **arguments: object) -> ToolResult:
    call = ToolCall(native_id="c", name="run_command", arguments=arguments)
    return await source.execute(call, clearance=Clearance.APPROVED)


async def wait_dead(pid: int) -> None:
    """SIGKILL is delivered asynchronously: the pipes close a moment before the process is a zombie."""
    async with asyncio.timeout(10):
        while not dead(pid):
            await asyncio.sleep(0.01)


def dead(pid: int) -> bool:
    """Gone, or a zombie waiting for a parent that is not us to reap it."""
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except (FileNotFoundError, ProcessLookupError):  # ESRCH while the process is exiting
        return True
    return "State:\tZ" in status


async def test_reports_exit_code_stdout_and_stderr(source: BuiltinToolSource) -> None:
    outcome = await run(source, command="echo out; echo err >&2; exit 3")
    assert outcome.is_error
    assert outcome.output == "exit code: 3\n--- stdout ---\nout\n\n--- stderr ---\nerr\n"


async def test_success_runs_in_the_workspace_or_a_cwd_inside_it(source: BuiltinToolSource, workspace: Path) -> None:
    here = await run(source, command="pwd")
    assert here == ToolResult(output=f"exit code: 0\n--- stdout ---\n{workspace}\n")
    sub = await run(source, command="ls", cwd="src")
    assert "main.py" in sub.output and not sub.is_error


async def test_stdout_and_stderr_are_each_capped(workspace: Path) -> None:
    source = builtin_source(workspace, ToolsSettings(output_limit_bytes=1000))
    outcome = await run(source, command="yes | head -c 500000; yes e | head -c 300000 >&2")
    assert "[truncated: showed 400 of 500000 bytes]" in outcome.output
    assert "[truncated: showed 400 of 300000 bytes]" in outcome.output
    assert "output truncated" not in outcome.output
    assert not outcome.is_error


async def test_a_low_risk_seq_over_a_huge_range_is_bounded_by_the_timeout_and_the_cap(workspace: Path) -> None:
    source = builtin_source(workspace, ToolsSettings(output_limit_bytes=1000))
    assert classify_command("seq 1 999999999999").level is RiskLevel.LOW
    outcome = await run(source, command="seq 1 999999999999", timeout=1)
    assert outcome.output.startswith("run_command timed out after 1 s and was cancelled; the process group was killed")
    assert len(outcome.output) < 2000  # the cap, not the range, sets what comes back


async def test_timeout_kills_the_whole_process_group(source: BuiltinToolSource, workspace: Path) -> None:
    pid_file = workspace / "child.pid"
    outcome = await run(source, command=f"sleep 300 & echo $! > {pid_file}; echo started; wait", timeout=1)
    assert outcome.is_error
    assert outcome.output.startswith("run_command timed out after 1 s and was cancelled; the process group was killed")
    assert "started" in outcome.output
    await wait_dead(int(pid_file.read_text()))


async def test_background_children_do_not_hold_the_call_open(source: BuiltinToolSource, workspace: Path) -> None:
    pid_file = workspace / "bg.pid"
    outcome = await run(source, command=f"sleep 300 & echo $! > {pid_file}; echo done", timeout=120)
    assert outcome == ToolResult(output="exit code: 0\n--- stdout ---\ndone\n")
    await wait_dead(int(pid_file.read_text()))


async def test_cancellation_kills_the_process_group(source: BuiltinToolSource, workspace: Path) -> None:
    pid_file = workspace / "cancel.pid"
    task = asyncio.create_task(run(source, command=f"echo $$ > {pid_file}; exec sleep 300"))
    async with asyncio.timeout(10):
        while not pid_file.exists() or not pid_file.read_text().strip():
            await asyncio.sleep(0.01)
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task
    await wait_dead(int(pid_file.read_text()))


async def test_bad_arguments_are_refused(source: BuiltinToolSource) -> None:
    for arguments, message in [
        ({"command": "  "}, "non-empty"),
        ({"command": "ls", "timeout": -1}, "positive"),
        ({"command": "ls", "cwd": "README.md"}, "not a directory"),
    ]:
        outcome = await run(source, **arguments)
        assert outcome.is_error and message in outcome.output


def test_risk_is_decided_per_call(source: BuiltinToolSource) -> None:
    tool = next(t for t in asyncio.run(source.list_tools()) if t.name == "run_command")
    assert tool.risk is RiskLevel.HIGH

    def risk(command: object) -> RiskLevel:
        return source.assess_risk(
            ToolCall(native_id="c", name="run_command", arguments={"command": command}), tool
        ).level

    assert risk("git status") is RiskLevel.LOW
    assert risk("rm -rf /") is RiskLevel.HIGH
    assert risk(None) is RiskLevel.HIGH


def test_environment_comes_from_the_context_not_the_process(workspace: Path) -> None:
    settings = ToolsSettings(command_env=CommandEnvSettings(set={"SET_HERE": "by-config"}))
    source = builtin_source(workspace, settings, environ={"PATH": os.environ["PATH"], "QUORUM_PROBE": "from-context"})
    outcome = asyncio.run(run(source, command="echo $QUORUM_PROBE $SET_HERE"))
    assert "from-context by-config" in outcome.output


def test_a_cancelled_command_is_reaped_before_its_cancellation_returns(
    source: BuiltinToolSource, workspace: Path
) -> None:
    """Nothing is left for the garbage collector: a process object still "running" after its loop
    closed is what asyncio reports at exit (``subprocess … is still running``, ``unclosed transport``).
    """

    pid_file = workspace / "reaped.pid"

    async def cancel_mid_command() -> None:
        task = asyncio.create_task(run(source, command=f"echo $$ > {pid_file}; exec sleep 300"))
        async with asyncio.timeout(10):
            while not pid_file.exists() or not pid_file.read_text().strip():
                await asyncio.sleep(0.01)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        asyncio.run(cancel_mid_command())  # a loop of its own, closed when the cancellation returns
        gc.collect()
    leaks = [str(w.message) for w in caught if issubclass(w.category, ResourceWarning)]
    assert leaks == []
