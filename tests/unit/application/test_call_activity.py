"""Adapters report votes and progress of the call they serve, through the run's context."""

from __future__ import annotations

import asyncio
from typing import Any

from quorum.application.run_context import emit_run_event, report_progress, report_vote
from quorum.domain.events import TurnFinished
from quorum.domain.review import ReviewDecision, Verdict, Vote
from quorum.domain.tools import RiskLevel
from tests.fakes import calls, text
from tests.unit.application.conftest import Harness


async def test_progress_reports_carry_the_id_of_the_call_that_made_them(h: Harness) -> None:
    both_running = asyncio.Barrier(2)

    def reporter(label: str) -> Any:
        async def tool(_: dict[str, Any]) -> str:
            await both_running.wait()  # both calls are in flight: each must still report as itself
            report_progress(f"{label} half way", 1, 2)
            return label

        return tool

    h.tools.add("a", reporter("a"))
    h.tools.add("b", reporter("b"))
    h.session.script = [calls(("a", {}), ("b", {})), text("done")]
    await h.run()
    progress = {(e.call_id, e.message, e.progress, e.total) for e in h.observer.of("progress")}
    assert progress == {("c1", "a half way", 1, 2), ("c2", "b half way", 1, 2)}
    kinds = [e.type for e in h.observer.events]
    assert kinds.index("progress") < kinds.index("tool_result")


async def test_votes_reported_during_review_are_events_before_the_decision(h: Harness) -> None:
    vote = Vote(reviewer="r1", verdict=Verdict.APPROVE, reason="fine", latency=0.25)

    async def review(call: Any, context: Any) -> ReviewDecision:
        report_vote(vote)
        return ReviewDecision(approved=True, decided_by="quorum", votes=(vote,), reason="fine")

    h.reviewer.review = review  # type: ignore[method-assign]
    h.tools.add("write", lambda _: asyncio.sleep(0, "ok"), risk=RiskLevel.HIGH)
    h.session.script = [calls(("write", {})), text("done")]
    await h.run()
    (cast,) = h.observer.of("vote")
    assert (cast.call_id, cast.reviewer, cast.verdict, cast.latency_ms) == ("c1", "r1", "approve", 250.0)
    kinds = [e.type for e in h.observer.events]
    assert kinds.index("vote") < kinds.index("review") < kinds.index("tool_result")


async def test_outside_a_call_reports_go_nowhere_and_outside_a_run_events_too() -> None:
    report_progress("nobody listens")
    report_vote(Vote(reviewer="r", verdict=Verdict.APPROVE))
    emit_run_event(TurnFinished(turn=1))  # no run: nothing raises, nothing is recorded
