"""Determinism: recorded workflow histories of representative runs replay with the current workflow code.

A change to the loop (``RunAgent``, ``ToolBatch``, ``ReviewGate``) or to ``RunWorkflow`` that would
make runs in flight fail on their next worker fails here. The histories in ``histories/`` are
written by the other tests of this folder with ``QUORUM_RECORD_HISTORIES=1`` (a crash mid-tool, a
deferred call approved after a crash, with no worker running, after a day, and never); rewrite
them only for a change meant to be incompatible (and say so in the release notes: runs in flight
must finish first).
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.integration.temporal.conftest import HISTORIES

EXPECTED = {
    "crash_mid_tool",
    "approved_after_crash",
    "approved_with_no_worker",
    "approved_after_a_day",
    "no_decision_in_a_day",
    "same_events_as_local",
}


def test_every_representative_history_is_committed() -> None:
    assert {p.stem for p in HISTORIES.glob("*.json")} >= EXPECTED


@pytest.mark.parametrize("name", sorted(EXPECTED))
async def test_a_recorded_history_replays_with_the_current_workflow(name: str) -> None:
    from temporalio.client import WorkflowHistory
    from temporalio.contrib.pydantic import pydantic_data_converter
    from temporalio.worker import Replayer
    from temporalio.worker.workflow_sandbox import SandboxedWorkflowRunner, SandboxRestrictions

    from quorum.infrastructure.engines.temporal.worker import PASSED_THROUGH
    from quorum.infrastructure.engines.temporal.workflow import RunWorkflow

    path: Path = HISTORIES / f"{name}.json"
    history = WorkflowHistory.from_json(name, path.read_text())
    replayer = Replayer(
        workflows=[RunWorkflow],
        data_converter=pydantic_data_converter,
        workflow_runner=SandboxedWorkflowRunner(
            restrictions=SandboxRestrictions.default.with_passthrough_modules(*PASSED_THROUGH)
        ),
    )
    result = await replayer.replay_workflow(history, raise_on_replay_failure=False)
    assert result.replay_failure is None, f"{name}: {result.replay_failure}"
