"""The ``PendingApprovals`` port on both backends: which calls are pending, and claiming them once.

Racing claimers are separate stores (separate connections, as separate processes or machines are)
released together by a barrier: exactly one wins, whatever the interleaving.
"""

from __future__ import annotations

import threading
from datetime import UTC, datetime
from typing import Any

import pytest

from quorum.application.ports.approvals import CallDecision, PendingApprovals
from quorum.application.ports.run_store import RecordedEvent, RunHeader
from quorum.domain.errors import UsageError
from quorum.domain.events import (
    ApprovalRequested,
    RunFinished,
    RunStarted,
    RunStopReason,
    ToolCallEvent,
    ToolResultEvent,
    TurnStarted,
)
from quorum.domain.responses import RunUsage
from quorum.domain.tools import RiskLevel
from tests.integration.storage.conftest import Backend

NOW = datetime(2025, 5, 1, tzinfo=UTC)


def awaiting_run(store: Any, run_id: str, call_ids: list[str], *, answered: tuple[str, ...] = ()) -> None:
    """Record a run stopped ``awaiting_approval`` on ``call_ids`` (those in ``answered`` got a result)."""
    store.start_run(RunHeader(run_id=run_id, task=f"task of {run_id}", model="m:x", started_at=NOW))
    events: list[Any] = [RunStarted(run_id=run_id, model="m:x", task=f"task of {run_id}"), TurnStarted(turn=1)]
    for call_id in call_ids:
        events.append(ToolCallEvent(id=call_id, name="write_file", arguments={"path": call_id}, risk=RiskLevel.HIGH))
    for call_id in call_ids:
        if call_id in answered:
            events.append(
                ToolResultEvent(
                    call_id=call_id, name="write_file", output="ok", is_error=False, is_rejected=False, duration_ms=1
                )
            )
        else:
            events.append(
                ApprovalRequested(
                    call_id=call_id, name="write_file", arguments={"path": call_id}, risk=RiskLevel.HIGH, reason="why"
                )
            )
    events.append(
        RunFinished(stop_reason=RunStopReason.AWAITING_APPROVAL, turns=1, output="", usage=RunUsage(), detail="wait")
    )
    store.append_events(run_id, [RecordedEvent(seq=i, at=NOW, event=e) for i, e in enumerate(events)])


def approve(*call_ids: str, by: str = "alice") -> list[CallDecision]:
    return [CallDecision(call_id=c, approved=True, by=by) for c in call_ids]


def test_pending_calls_are_listed_per_run_and_in_all(store: Any) -> None:
    assert isinstance(store, PendingApprovals)
    awaiting_run(store, "r1", ["c1", "c2"])
    awaiting_run(store, "r2", ["d1", "d2"], answered=("d2",))
    assert [p.request.call_id for p in store.pending("r1")] == ["c1", "c2"]
    assert [(p.run_id, p.request.call_id) for p in store.pending()] == [("r1", "c1"), ("r1", "c2"), ("r2", "d1")]
    first = store.pending("r1")[0]
    assert (first.task, first.request.arguments, first.request.risk) == ("task of r1", {"path": "c1"}, "high")
    assert store.pending("nope") == []


def test_a_claim_records_the_decisions_and_takes_the_run_over(store: Any) -> None:
    awaiting_run(store, "r1", ["c1", "c2"])
    store.claim("r1", approve("c1"))
    assert store.pending("r1") == []  # the run is being continued: nothing pending in it
    run = store.get_run("r1")
    assert run is not None and run.status == "interrupted" and run.ended_at is None
    with pytest.raises(UsageError, match="not waiting for approval"):
        store.claim("r1", approve("c2"))


def test_claims_that_cannot_be_honoured_record_nothing(store: Any) -> None:
    awaiting_run(store, "r1", ["c1", "c2"], answered=("c2",))
    with pytest.raises(UsageError, match="no run 'zzz'"):
        store.claim("zzz", approve("c1"))
    with pytest.raises(UsageError, match="c2 is no longer pending"):
        store.claim("r1", approve("c1", "c2"))  # c2 was executed: all or nothing
    with pytest.raises(UsageError, match="unknown is no longer pending"):
        store.claim("r1", approve("unknown"))
    assert [p.request.call_id for p in store.pending("r1")] == ["c1"]
    store.claim("r1", [CallDecision(call_id="c1", approved=False, by="bob", reason="no")])
    assert store.pending() == []


@pytest.mark.parametrize("claimers", [2, 8])
def test_of_concurrent_claimers_on_separate_connections_exactly_one_wins(backend: Backend, claimers: int) -> None:
    setup = backend.open()
    awaiting_run(setup, "r1", ["c1"])
    stores = [backend.open() for _ in range(claimers)]
    for each in stores:
        each.get_run("r1")  # connect (and migrate) before the race, so the claims themselves race
    barrier = threading.Barrier(claimers)
    outcomes: list[str] = []
    lock = threading.Lock()

    def claim(index: int) -> None:
        barrier.wait()
        try:
            stores[index].claim("r1", approve("c1", by=f"person{index}"))
            outcome = "won"
        except UsageError:
            outcome = "lost"
        with lock:
            outcomes.append(outcome)

    threads = [threading.Thread(target=claim, args=(i,)) for i in range(claimers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert sorted(outcomes) == ["lost"] * (claimers - 1) + ["won"]
    assert setup.pending() == []


def test_a_claim_repeated_with_its_decision_id_succeeds_without_recording_again(store: Any) -> None:
    """The Temporal engine retries a claim whose first attempt committed but never reported back."""
    awaiting_run(store, "r1", ["c1", "c2"])
    decided = [CallDecision(call_id="c1", approved=True, by="alice", decision_id="claim-1")]
    store.claim("r1", decided)
    store.claim("r1", decided)  # the retry: the same claim, already recorded
    other = [CallDecision(call_id="c1", approved=True, by="alice", decision_id="claim-2")]
    with pytest.raises(UsageError, match="not waiting for approval"):
        store.claim("r1", other)  # another claim of the same call is still refused
    with pytest.raises(UsageError):
        store.claim("r1", approve("c1"))  # and so is one without an id


def test_the_engine_of_a_run_is_recorded_and_large_outputs_kept_by_reference(store: Any) -> None:
    store.start_run(RunHeader(run_id="t1", task="t", model="m:x", started_at=NOW, engine="temporal"))
    store.start_run(RunHeader(run_id="l1", task="t", model="m:x", started_at=NOW))
    assert (store.get_run("t1").engine, store.get_run("l1").engine) == ("temporal", "local")
    store.put_payload("t1", "k", "x" * 40_000)
    store.put_payload("t1", "k", "ignored: a repeated put keeps the first")
    assert store.get_payload("t1", "k") == "x" * 40_000
    assert store.get_payload("t1", "other") is None
