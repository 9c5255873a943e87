"""A turn left open by deferred review: what a run needs to go on once people have decided.

``hil_mode = "defer"`` ends a run with ``awaiting_approval`` while some high-risk calls of its
last turn have no result. To continue it (``quorum approve``/``reject``, or another engine), the
loop is given a ``PendingTurn``: the turn's calls, the results already produced, the decisions
made since, and the requests still open. ``RunAgent`` then settles the decided calls
(``Run.settle``), sends every result of the turn together (providers require each tool call to
be answered by the next message), and goes on with its loop.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, model_validator

from quorum.domain.events import ApprovalRequested
from quorum.domain.responses import RunUsage
from quorum.domain.review import ReviewDecision
from quorum.domain.tools import ToolCall, ToolResult


class PendingTurn(BaseModel):
    """The open turn of a run stopped ``awaiting_approval``, with the decisions to apply.

    Attributes:
        turn: the turn's number (the continued run's next turn is ``turn + 1``).
        calls: every call of the turn's response, in emission order.
        results: the results already produced (calls run or refused before the stop).
        decisions: call id → a person's decision on a waiting call (``decided_by="human"``).
        waiting: the requests of waiting calls nobody decided yet; if any remain the run stops
            ``awaiting_approval`` again after settling the decided ones, without asking the model.
        usage_before: the tokens the run spent before this continuation (the totals go on).
        cost_before: what the run cost before (USD), None when unknown.
    """

    model_config = ConfigDict(frozen=True)

    turn: int
    calls: tuple[ToolCall, ...]
    results: tuple[ToolResult, ...] = ()
    decisions: dict[str, ReviewDecision]
    waiting: tuple[ApprovalRequested, ...] = ()
    usage_before: RunUsage = RunUsage()
    cost_before: float | None = 0.0

    @model_validator(mode="after")
    def _every_call_accounted_for(self) -> PendingTurn:
        ids = [call.native_id for call in self.calls]
        answered = {r.call_id for r in self.results}
        decided = set(self.decisions)
        open_ = {request.call_id for request in self.waiting}
        if answered & decided or decided & open_ or answered & open_:
            raise ValueError("a call is either answered, decided now, or still waiting")
        if answered | decided | open_ != set(ids):
            raise ValueError("every call of the turn must be answered, decided now, or still waiting")
        if not decided:
            raise ValueError("a continuation applies at least one decision")
        return self
