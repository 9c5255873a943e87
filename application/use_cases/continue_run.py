"""ContinueRun: apply people's decisions to a run stopped ``awaiting_approval`` and go on with it."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict

from quorum.application.deferral import PendingTurn
from quorum.application.execution import ExecutionParams, RunRequest, RunResult
from quorum.application.ports.approvals import CallDecision, PendingApprovals, PendingCall
from quorum.application.ports.run_store import RunStore, RunSummary
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.errors import UsageError
from quorum.domain.events import PlanReviewed, RunEvent, RunStarted
from quorum.domain.messages import Message
from quorum.domain.plans import ApprovedPlan
from quorum.domain.responses import Usage
from quorum.domain.review import ReviewDecision, Verdict, Vote
from quorum.domain.tools import ToolCall, ToolResult


class ContinueRequest(BaseModel):
    """People's decision on calls of a run waiting for approval, and how to go on.

    Attributes:
        run_id: the run stopped ``awaiting_approval``.
        approved: approve the calls (they run) or reject them (the model sees ``reason``).
        call_ids: the calls decided; empty means every pending call of the run. Calls left out
            stay pending: the decided ones are settled and the run stops ``awaiting_approval``
            again, without asking the model, until every call of the turn is decided.
        by: who decides (recorded in the ``review`` event and the vote).
        reason: why (shown to the model for a rejection).
        model_id: the model to go on with; None: the one the run used last. The recorded
            conversation is provider-neutral, so any provider may continue it.
        system_prompt: the system prompt of the continued part.
        params: the loop limits of the continued part.
        cancel: the decision cancels the run; a run waiting with no call pending (left so by an
            older version) is then ended ``cancelled`` instead of refused.
    """

    model_config = ConfigDict(frozen=True)

    run_id: str
    approved: bool
    call_ids: tuple[str, ...] = ()
    by: str
    reason: str = ""
    model_id: str | None = None
    system_prompt: str | None = None
    params: ExecutionParams = ExecutionParams()
    cancel: bool = False


class ContinueRun:
    """Records the decisions (claimed once, atomically) and continues the run under its own id.

    The same engine-neutral steps serve every engine: read the pending calls and the recorded
    conversation from the run log, claim the decisions, rebuild the open turn (``PendingTurn``),
    and let ``RunAgent`` settle it and go on to its next stop, which may be another
    ``awaiting_approval``. A call that is no longer pending (decided, executed, or claimed by a
    concurrent process) is refused with ``UsageError`` before anything runs.
    """

    def __init__(self, *, store: RunStore, approvals: PendingApprovals, agent: RunAgent) -> None:
        self._store = store
        self._approvals = approvals
        self._agent = agent

    async def execute(self, request: ContinueRequest) -> RunResult:
        """Decide, then continue the run to its next stop.

        Raises:
            UsageError: no such run, nothing pending in it, a named call is not pending, or
                another process claimed the run first. Nothing was executed then.
            asyncio.CancelledError: as ``RunAgent.execute``.
        """
        run = self._store.get_run(request.run_id)
        if run is None:
            raise UsageError(f"there is no run {request.run_id!r} in the run log")
        pending = {p.request.call_id: p for p in self._approvals.pending(run.run_id)}
        if not pending and request.cancel and run.status == "awaiting_approval":
            events = [recorded.event for recorded in self._store.load_events(run.run_id)]
            model = next((e.model for e in reversed(events) if isinstance(e, RunStarted)), "")
            return self._agent.end_cancelled(run, model, "cancelled: no call was left waiting for approval")
        if not pending:
            raise UsageError(f"run {run.run_id} has no calls waiting for approval (status: {run.status})")
        chosen = list(dict.fromkeys(request.call_ids)) or list(pending)
        unknown = [call_id for call_id in chosen if call_id not in pending]
        if unknown:
            raise UsageError(
                f"run {run.run_id}: {', '.join(unknown)} {'is' if len(unknown) == 1 else 'are'} not pending"
                f" (pending: {', '.join(pending)})"
            )
        events = [recorded.event for recorded in self._store.load_events(run.run_id)]
        model = request.model_id or next(e.model for e in reversed(events) if isinstance(e, RunStarted))
        history = self._store.load_history(run.run_id)
        decisions = [
            CallDecision(call_id=call_id, approved=request.approved, by=request.by, reason=request.reason)
            for call_id in chosen
        ]
        turn = open_turn(run, history, pending, decisions)
        self._approvals.claim(run.run_id, decisions)  # from here on, this process owns the run
        return await self._agent.execute(
            RunRequest(
                task=run.task,
                model_id=model,
                system_prompt=request.system_prompt,
                params=request.params,
                history=tuple(history[:-1]),
                run_id=run.run_id,
                resume=turn,
                approved_plan=approved_plan(events),
                output_schema=next(
                    (e.output_schema for e in events if isinstance(e, RunStarted) and e.output_schema is not None), None
                ),
            )
        )


def approved_plan(events: list[RunEvent]) -> ApprovedPlan | None:
    """The plan a plan-mode run had approved (its last ``plan_reviewed`` approval), or None."""
    for event in reversed(events):
        if isinstance(event, PlanReviewed) and event.approved:
            return ApprovedPlan(plan=event.plan, turn=event.turn)
    return None


def human_decision(pending: PendingCall, decision: CallDecision) -> ReviewDecision:
    """The review decision a person's ``decision`` makes: the votes so far, then the person's."""
    word = "approved" if decision.approved else "rejected"
    reason = decision.reason.strip() or f"{word} by {decision.by}"
    earlier = tuple(
        vote.model_copy(update={"usage": Usage()})  # their tokens were counted when they voted
        for vote in pending.request.votes
    )
    vote = Vote(reviewer="human", verdict=Verdict.APPROVE if decision.approved else Verdict.REJECT, reason=reason)
    return ReviewDecision(
        approved=decision.approved,
        decided_by="human",
        votes=(*earlier, vote),
        rule=pending.request.rule,
        reason=reason,
        by=decision.by,
    )


def open_turn(
    run: RunSummary, history: list[Message], pending: dict[str, PendingCall], decisions: list[CallDecision]
) -> PendingTurn:
    """The open turn of ``run`` (its ``history`` ends with it), with ``decisions`` applied. Pure.

    Raises:
        UsageError: the history does not end with a turn holding the pending calls.
    """
    if len(history) < 2 or history[-2].role != "assistant":
        raise UsageError(f"the run log of run {run.run_id} does not end with the turn waiting for approval")
    calls = [b for b in history[-2].content if isinstance(b, ToolCall)]
    if not set(pending) <= {call.native_id for call in calls}:
        raise UsageError(f"the run log of run {run.run_id} does not end with the turn waiting for approval")
    decided = {d.call_id: human_decision(pending[d.call_id], d) for d in decisions}
    results = [b for b in history[-1].content if isinstance(b, ToolResult) and b.call_id not in pending]
    return PendingTurn(
        turn=run.turns,
        calls=tuple(calls),
        results=tuple(results),
        decisions=decided,
        waiting=tuple(p.request for call_id, p in pending.items() if call_id not in decided),
        usage_before=run.usage,
        cost_before=run.cost,
    )
