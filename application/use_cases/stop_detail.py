"""What a run's stop was about, as data: the ``stop`` field of ``run_finished``.

Read from the run's parameters and its state at the end, so the loop's stops stay a reason and a
sentence (``run_finished.detail``) while renderers get numbers and ids to word for themselves.
"""

from __future__ import annotations

from collections.abc import Sequence

from quorum.application.execution import ExecutionParams
from quorum.application.loop_guard import WARNINGS
from quorum.application.output_schema import ANSWER_TRIES
from quorum.application.ports.pricing import PriceList
from quorum.application.use_cases.run_state import RunState
from quorum.domain.events import RunStopReason, StopDetail


def stop_detail(
    reason: RunStopReason,
    params: ExecutionParams,
    state: RunState,
    prices: PriceList | None,
    waiting: Sequence[str] = (),
) -> StopDetail | None:
    """The ``StopDetail`` of a run that stopped for ``reason``; None when there is nothing to add.

    ``waiting`` are the ids of the calls left to a person (``awaiting_approval``).
    """
    if reason is RunStopReason.MAX_TURNS:
        return StopDetail(limit=params.max_tool_turns)
    if reason is RunStopReason.NO_PLAN:
        return StopDetail(limit=params.max_plan_turns)
    if reason is RunStopReason.REJECTED and state.blocked_by is not None:
        return StopDetail(hook=state.blocked_by)
    if reason is RunStopReason.REJECTED:
        return StopDetail(limit=params.max_rejections)
    if reason is RunStopReason.LOOP_DETECTED:
        return StopDetail(limit=WARNINGS)
    if reason is RunStopReason.INVALID_OUTPUT:
        return StopDetail(limit=ANSWER_TRIES)
    if reason is RunStopReason.TIMEOUT:
        return StopDetail(limit=params.timeout_seconds)
    if reason is RunStopReason.MAX_TOKENS:
        budget, used = params.max_total_tokens, state.usage.total_tokens
        over = budget is not None and used > budget  # else the model hit its output token limit
        return StopDetail(limit=budget, used=used) if over else StopDetail()
    if reason is RunStopReason.MAX_COST:
        return StopDetail(limit=state.cost_cap, used=state.cost(prices))
    if reason is RunStopReason.AWAITING_APPROVAL:
        return StopDetail(waiting_calls=list(waiting))
    return None
