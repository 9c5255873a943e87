"""Deferred review in the loop: a call waiting for a person, and the run going on once decided."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quorum.application.deferral import PendingTurn
from quorum.application.execution import RunRequest
from quorum.application.ports.reviewer import ReviewContext
from quorum.domain.messages import Message
from quorum.domain.policy import PolicyRule
from quorum.domain.responses import TextBlock
from quorum.domain.review import ReviewDecision, Verdict, Vote
from quorum.domain.tools import Clearance, RiskLevel, ToolCall, ToolParameter, ToolResult
from tests.fakes import ScriptedReviewer, calls, text
from tests.unit.application.conftest import Harness


@dataclass
class DeferringReviewer(ScriptedReviewer):
    """Defers the calls in ``defer`` (as ``hil_mode = "defer"`` does), else as ScriptedReviewer."""

    defer: set[str] = field(default_factory=set)

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        if call.native_id in self.defer:
            self.reviewed.append(call.native_id)
            vote = Vote(reviewer="panel-a", verdict=Verdict.REJECT, reason="risky")
            return ReviewDecision(
                approved=False, decided_by="human", deferred=True, votes=(vote,), reason="a human must decide"
            )
        return await super().review(call, context)


async def write(args: dict[str, Any]) -> str:
    return f"wrote {args.get('path')}"


async def read(args: dict[str, Any]) -> str:
    return "contents"


def setup(h: Harness, defer: set[str]) -> None:
    h.reviewer = DeferringReviewer(tools=h.tools, defer=defer)
    h.tools.add("write", write, risk=RiskLevel.HIGH, params=(ToolParameter(name="path"),))
    h.tools.add("read", read)


async def test_a_deferred_call_waits_and_the_rest_of_the_turn_runs(h: Harness) -> None:
    setup(h, defer={"c1"})
    h.session.script = [calls(("write", {"path": "a"}), ("read", {}), ("write", {"path": "b"})), text("unused")]
    result = await h.run()
    assert result.stop_reason == "awaiting_approval" and "c1" in (result.detail or "")
    assert sorted(h.tools.executed) == ["c2", "c3"]  # the low-risk call and the approved high-risk one
    (request,) = h.observer.of("approval_requested")
    assert (request.call_id, request.name, request.arguments, request.risk) == ("c1", "write", {"path": "a"}, "high")
    assert [v.reviewer for v in request.votes] == ["panel-a"]
    assert "c1" not in [e.call_id for e in h.observer.of("tool_result")]
    assert "c1" not in [e.call_id for e in h.observer.of("review")]
    assert [s[0] for s in h.session.sent] == ["send_with_tools"]  # the model is not asked again
    assert h.observer.types()[-1] == "run_finished"


def open_turn(decisions: dict[str, ReviewDecision], waiting: tuple[Any, ...] = ()) -> tuple[list[Message], PendingTurn]:
    calls_ = (
        ToolCall(native_id="c1", name="write", arguments={"path": "a"}),
        ToolCall(native_id="c2", name="read", arguments={}),
        ToolCall(native_id="c3", name="write", arguments={"path": "b"}),
    )
    history = [
        Message(role="user", content=(TextBlock(text="do it"),)),
        Message(
            role="assistant",
            content=tuple(ToolCall(native_id=c.native_id, name=c.name, arguments=dict(c.arguments)) for c in calls_),
        ),
    ]
    turn = PendingTurn(
        turn=1,
        calls=calls_,
        results=(ToolResult(call_id="c2", name="read", output="contents"),),
        decisions=decisions,
        waiting=waiting,
    )
    return history, turn


def person(approved: bool, reason: str = "") -> ReviewDecision:
    return ReviewDecision(approved=approved, decided_by="human", reason=reason, by="alice")


async def resume(h: Harness, history: list[Message], turn: PendingTurn) -> Any:
    request = RunRequest(task="do it", model_id="fake:model", history=tuple(history), run_id="run-1", resume=turn)
    return await h.agent().execute(request)


async def test_continuing_runs_the_approved_calls_and_sends_every_result_together(h: Harness) -> None:
    setup(h, defer=set())
    h.session.script = [text("finished")]
    history, turn = open_turn({"c1": person(True), "c3": person(False, "not b")})
    result = await resume(h, history, turn)
    assert result.stop_reason == "end_turn" and result.output == "finished" and result.turns == 2
    assert h.tools.executed == ["c1"] and h.tools.clearances["c1"] is Clearance.APPROVED
    assert h.reviewer.reviewed == []  # people decided: no second review
    sent = h.results_sent(0)
    assert [r.call_id for r in sent] == ["c1", "c2", "c3"]  # every call of the turn answered at once
    assert sent[1].output == "contents"  # the recorded result, not executed again
    assert sent[2].is_rejected and "not b" in sent[2].output  # the model sees the person's reason
    started = h.observer.of("run_started")[0]
    assert started.resumed and started.run_id == "run-1"
    assert [(e.call_id, e.by) for e in h.observer.of("review")] == [("c1", "alice"), ("c3", "alice")]


async def test_a_call_left_undecided_keeps_the_run_waiting(h: Harness) -> None:
    setup(h, defer=set())
    from quorum.domain.events import ApprovalRequested

    still = ApprovalRequested(call_id="c3", name="write", arguments={"path": "b"}, risk=RiskLevel.HIGH, reason="r")
    history, turn = open_turn({"c1": person(True)}, waiting=(still,))
    result = await resume(h, history, turn)
    assert result.stop_reason == "awaiting_approval" and "c3" in (result.detail or "")
    assert h.tools.executed == ["c1"]
    assert h.session.sent == []  # the model waits for the whole turn
    assert [e.call_id for e in h.observer.of("approval_requested")] == ["c3"]  # said again


async def test_a_deny_rule_still_refuses_an_approved_call(h: Harness) -> None:
    setup(h, defer=set())
    h.reviewer.rules = [PolicyRule(decision="deny", tool="write", reason="no writes")]
    h.session.script = [text("ok")]
    history, turn = open_turn({"c1": person(True), "c3": person(True)})
    await resume(h, history, turn)
    assert h.tools.executed == []
    assert all(r.is_rejected for r in h.results_sent(0) if r.call_id != "c2")


def test_a_deferred_decision_cannot_be_an_approval() -> None:
    import pytest

    with pytest.raises(ValueError):
        ReviewDecision(approved=True, decided_by="human", deferred=True)
