"""run_command reports its latest output line while it runs (real processes, on the host and sandboxed).

Each command prints, then waits for a file the test creates only once it has seen the line it
expects as a ``progress`` event: a line reported only at the end would leave the command
waiting, and the test fails on its timeout instead of passing by timing.
"""

from __future__ import annotations

import asyncio
import time
from pathlib import Path
from typing import Any

from quorum.application.execution import RunRequest
from quorum.application.run_context import CallActivity, current_call
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.secrets import Redactor, Secret
from quorum.domain.tools import Clearance, ToolCall, ToolResult
from quorum.infrastructure.tools.builtin import BuiltinToolSource
from quorum.infrastructure.tools.executor import PluginToolExecutor
from quorum.infrastructure.tools.settings import ToolsSettings
from quorum.infrastructure.tools.shell.progress import INTERVAL
from tests.fakes import FakeGateway, JsonSchema, ScriptedReviewer, ScriptedSession, calls, text
from tests.integration.tools.conftest import builtin_source
from tests.support.sandbox import require_bubblewrap

KEY = "sk-progress-secret-0123456789"


def waits_for(go: Path) -> str:
    """Shell text that blocks until ``go`` exists (polled by the command, not by the test)."""
    return f"while [ ! -e {go} ]; do sleep 0.02; done"


async def run_watching(
    source: BuiltinToolSource, command: str, clearance: Clearance, *stages: tuple[str, Path]
) -> tuple[ToolResult, list[Any]]:
    """Run ``command`` as call ``c``; for each stage ``(line, go)``, create ``go`` once ``line`` was reported."""
    events: list[Any] = []
    changed = asyncio.Event()

    def emit(event: Any) -> None:
        events.append(event)
        changed.set()

    token = current_call.set(CallActivity("c", emit))
    try:
        call = ToolCall(native_id="c", name="run_command", arguments={"command": command, "timeout": 60})
        task = asyncio.create_task(source.execute(call, clearance=clearance))
    finally:
        current_call.reset(token)
    try:
        for line, go in stages:
            async with asyncio.timeout(30):
                while not (events and events[-1].message == line):
                    changed.clear()
                    await changed.wait()
            assert not task.done(), "the line must be reported while the command runs"
            go.touch()
    finally:
        for _, go in stages:
            go.touch()
    return await task, events


async def test_the_latest_line_is_reported_while_an_approved_command_runs(
    source: BuiltinToolSource, workspace: Path
) -> None:
    first, second = workspace / "go1", workspace / "go2"
    command = f"echo step 1; echo step 2; {waits_for(first)}; echo oops >&2; {waits_for(second)}; echo finished"
    outcome, events = await run_watching(source, command, Clearance.APPROVED, ("step 2", first), ("oops", second))
    assert all((e.type, e.call_id) == ("progress", "c") for e in events)
    # the result is what it always was: nothing of the progress leaks into it
    assert outcome == ToolResult(
        output="exit code: 0\n--- stdout ---\nstep 1\nstep 2\nfinished\n\n--- stderr ---\noops\n"
    )


async def test_the_latest_line_is_reported_from_inside_the_sandbox(workspace: Path) -> None:
    require_bubblewrap()
    source = builtin_source(workspace)
    go = workspace / "go"
    command = f"printf 'compiling\\r 40%%\\r 80%%'; {waits_for(go)}"
    outcome, _ = await run_watching(source, command, Clearance.UNREVIEWED, ("80%", go))
    assert outcome == ToolResult(output="exit code: 0\n--- stdout ---\ncompiling\r 40%\r 80%")


async def test_a_chatty_command_is_reported_at_most_a_few_times_a_second(
    source: BuiltinToolSource, workspace: Path
) -> None:
    go = workspace / "go"
    command = f"i=0; while [ $i -lt 3000 ]; do echo line $i; i=$((i+1)); done; {waits_for(go)}"
    started = time.monotonic()
    outcome, events = await run_watching(source, command, Clearance.APPROVED, ("line 2999", go))
    elapsed = time.monotonic() - started
    # reports are at least INTERVAL apart, however loaded the machine: a bound, not a timing guess
    assert 1 <= len(events) <= elapsed / INTERVAL + 1
    assert events[-1].message == "line 2999"  # the latest line, not a stale one
    assert outcome.output.startswith("exit code: 0\n--- stdout ---\nline 0\nline 1\n")


async def test_a_secret_a_command_prints_never_reaches_a_progress_event(workspace: Path) -> None:
    """The run's observer redacts progress like every event (the launcher here knows no secret)."""
    source = builtin_source(workspace, ToolsSettings(output_limit_bytes=2000))
    go = workspace / "go"
    events: list[Any] = []

    class Observer:
        def on_event(self, event: Any) -> None:
            events.append(event)
            if event.type == "progress" and "[REDACTED:API_KEY]" in event.message:
                go.touch()

    command = f"echo using {KEY} now; {waits_for(go)}"
    session = ScriptedSession([calls(("run_command", {"command": command, "timeout": 60})), text("done")])
    agent = RunAgent(
        gateway=FakeGateway(session),
        executor=PluginToolExecutor(sources=[source]),
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=Observer(),
        redactor=Redactor([Secret("API_KEY", KEY)]),
        new_run_id=lambda: "run-1",
    )
    async with asyncio.timeout(30):
        await agent.execute(RunRequest(task="use the key", model_id="fake:model"))
    progress = [e for e in events if e.type == "progress"]
    assert progress and progress[0].message == "using [REDACTED:API_KEY] now"
    assert not any(KEY in str(e.model_dump()) for e in events)
