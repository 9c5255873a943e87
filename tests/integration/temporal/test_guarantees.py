"""The Temporal engine's guarantees with real worker processes killed with SIGKILL on the dev server.

Synchronisation is on the tools' own effects: a call that reads a FIFO (``cat NAME``) has started
when the test's open of the FIFO for writing returns, and finishes when the test closes it.
Executions are counted on disk (lines a command appends, readers of a FIFO), never by timing.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

from tests.e2e.conftest import Cli
from tests.integration.temporal.conftest import DevServer, FifoGate, Worker, save_history, workflow_result


def _command(command: str, call_id: str) -> dict[str, Any]:
    return {"name": "run_command", "arguments": {"command": command}, "id": call_id}


def _script(cli: Cli, *turns: dict[str, Any]) -> None:
    cli.write("s.json", json.dumps({"conversation": "continue", "turns": list(turns)}))


def _results(cli: Cli, run_id: str) -> dict[str, dict[str, Any]]:
    shown = cli("logs", "show", run_id, "--json")
    assert shown.code == 0, shown.stderr
    events = [json.loads(line) for line in shown.stdout.splitlines()[1:]]
    return {e["call_id"]: e for e in events if e["type"] == "tool_result"}


def test_a_killed_worker_repeats_no_completed_call_retries_low_risk_and_runs_high_risk_at_most_once(
    tcli: Cli, temporal_server: DevServer
) -> None:
    low, high = FifoGate(tcli.workspace, "low.fifo"), FifoGate(tcli.workspace, "high.fifo")
    _script(
        tcli,
        {"text": "first", "tool_calls": [_command("echo a >> done.txt", "done")]},
        {"text": "read", "tool_calls": [_command("cat low.fifo", "low")]},
        {"text": "act", "tool_calls": [_command("echo b >> high.txt && cat high.fifo", "high")]},
        {"text": "finished"},
    )
    first = Worker(tcli).start()
    started = tcli("run", "--detach", "--yes", "--model", "scripted:s.json", "work")
    assert started.code == 0, started.stderr
    run_id = started.stdout.strip()

    low.wait_reader()  # the low-risk call is running on the first worker (turn 1 is done)
    first.kill()
    low.release()  # the killed attempt's `cat` ends with nothing; its result is never reported
    second = Worker(tcli).start()
    low.wait_reader()  # retried on the second worker once the first one's heartbeat stopped
    low.release("low data\n")

    high.wait_reader()  # the high-risk call is running on the second worker
    second.kill()
    high.release()
    third = Worker(tcli).start()
    try:
        result = workflow_result(temporal_server, run_id)
    finally:
        third.stop()

    assert result.stop_reason == "end_turn" and result.output == "finished"
    assert (tcli.workspace / "done.txt").read_text() == "a\n"  # completed before two crashes: run once
    assert low.readers == 2  # a low-risk call may run again: at least once
    assert (tcli.workspace / "high.txt").read_text() == "b\n"  # a high-risk call: at most once
    assert high.readers == 1
    results = _results(tcli, run_id)
    assert "low data" in results["low"]["output"] and not results["low"]["is_error"]
    assert results["high"]["is_error"] and "outcome of this call is unknown" in results["high"]["output"]
    save_history(temporal_server, run_id, "crash_mid_tool")


def _deferred_run(cli: Cli) -> str:
    _script(
        cli,
        {"text": "acting", "tool_calls": [_command("echo x >> approved.txt", "c1")]},
        {"text": "all done"},
    )
    deferred = cli("run", "--defer", "--model", "scripted:s.json", "--json", "act")
    assert deferred.code == 4, deferred.stderr
    assert deferred.events()[-1]["stop_reason"] == "awaiting_approval"
    return str(deferred.events()[0]["run_id"])


def _approve_in_background(cli: Cli, run_id: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [sys.executable, "-m", "quorum.cli.main", "approve", run_id, "--by", "alice", "--json"],
        cwd=cli.workspace,
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_a_worker_killed_while_waiting_for_approval_loses_nothing(tcli: Cli, temporal_server: DevServer) -> None:
    waiting = Worker(tcli).start()
    run_id = _deferred_run(tcli)
    waiting.kill()  # the workflow is waiting for the Signal; its worker dies
    again = Worker(tcli).start()
    try:
        approved = tcli("approve", run_id, "--by", "alice", "--json", timeout=120)
    finally:
        again.stop()
    assert approved.code == 0, approved.stderr
    assert approved.events()[-1]["output"] == "all done"
    assert (tcli.workspace / "approved.txt").read_text() == "x\n"
    save_history(temporal_server, run_id, "approved_after_crash")


def test_an_approval_sent_with_no_worker_running_is_applied_when_one_starts(
    tcli: Cli, temporal_server: DevServer
) -> None:
    first = Worker(tcli).start()
    run_id = _deferred_run(tcli)
    first.stop()
    approving = _approve_in_background(tcli, run_id)  # signals, then follows the log
    assert workflow_history_has_signal(temporal_server, run_id)  # buffered by Temporal with no worker
    assert not (tcli.workspace / "approved.txt").exists()
    later = Worker(tcli).start()
    try:
        out, err = approving.communicate(timeout=120)
    finally:
        later.stop()
    assert approving.returncode == 0, err
    assert json.loads(out.splitlines()[-1])["output"] == "all done"
    assert (tcli.workspace / "approved.txt").read_text() == "x\n"
    assert _results(tcli, run_id)["c1"]["is_error"] is False
    save_history(temporal_server, run_id, "approved_with_no_worker")


def workflow_history_has_signal(server: DevServer, run_id: str, timeout: float = 60.0) -> bool:
    """Wait until the run's history holds the ``decide`` Signal (the approve process sent it)."""
    import asyncio

    from temporalio.api.enums.v1 import EventType
    from temporalio.client import Client

    async def signalled() -> bool:
        client = await Client.connect(server.address)
        handle = client.get_workflow_handle(run_id)
        async for event in handle.fetch_history_events(wait_new_event=True):
            if event.event_type == EventType.EVENT_TYPE_WORKFLOW_EXECUTION_SIGNALED:
                return True
        return False

    return asyncio.run(asyncio.wait_for(signalled(), timeout))
