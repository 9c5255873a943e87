"""PlanPhase: plan mode's planning phase — explore read-only, propose a plan, have it reviewed.

``RunAgent`` runs it first when a run is in plan mode; it ends with the first input of the
execution phase (the approved ``propose_plan`` call's result, all tools offered, the plan in the
system prompt), or with the run's stop.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from functools import partial
from typing import Any

from quorum.application import model_wording as say
from quorum.application.argument_validation import ArgumentValidator
from quorum.application.deferral import PendingTurn
from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.loop_guard import RepeatGuard
from quorum.application.plan_mode import (
    PROPOSE_PLAN,
    PROPOSE_PLAN_TOOL,
    PlanEvents,
    PlanningExecutor,
    PlanningReviewer,
    execution_prompt,
    planning_prompt,
)
from quorum.application.ports.llm import LlmGateway, TurnInput
from quorum.application.ports.observer import RunObserver
from quorum.application.ports.pricing import PriceList
from quorum.application.ports.reviewer import CallReviewer, ReviewContext
from quorum.application.ports.tool_executor import ToolExecutor
from quorum.application.ports.tool_schema import ToolSchemaPort
from quorum.application.tool_batch import RejectionCounter, ToolBatch, TurnCalls
from quorum.application.use_cases.run_state import RunState, Stop
from quorum.domain.events import RunStopReason, TurnFinished, TurnStarted
from quorum.domain.plans import ApprovedPlan
from quorum.domain.responses import LlmResponse
from quorum.domain.secrets import Redactor
from quorum.domain.tools import RiskAssessment, ToolDefinition, ToolSpec

Ask = Callable[[TurnInput], Awaitable[LlmResponse]]
"""Sends one turn on the run's session (``RunAgent._ask``: streaming, compaction, counting)."""
Schemas = list[dict[str, Any]]
"""The wire schemas of the tools a request offers."""
Settle = Callable[[PendingTurn, ToolBatch, Schemas], Awaitable["Stop | TurnInput"]]
"""Settles a turn left open by deferred review with a batch, offering tools after (``RunAgent._settle``)."""
AfterBatch = Callable[[TurnCalls, Schemas], "Stop | TurnInput"]
"""The stop a batch's outcome calls for, or the turn sending its results (``RunAgent._after_batch``)."""


def plans(request: RunRequest) -> bool:
    """Whether ``request`` starts (or, continued, is still in) a planning phase.

    A continued run plans while its open turn holds a ``propose_plan`` call; a new one when
    ``params.plan`` is ``always`` and no plan is approved yet.
    """
    if request.resume is not None:
        return any(call.name == PROPOSE_PLAN for call in request.resume.calls)
    return request.params.plan == "always" and request.approved_plan is None


class PlanPhase:
    """The planning phase of one run, on the run's own session, state and events.

    Only low-risk tools and ``propose_plan`` are offered, and only low-risk calls execute
    (``PlanningExecutor``). The phase ends when a plan is approved (returns the execution
    phase's first input), when its review is deferred (``awaiting_approval``), after
    ``max_rejections`` rejections in a row (``rejected``), at the run's usual limits, or after
    ``max_plan_turns`` turns without an approved plan (``no_plan``).
    """

    def __init__(
        self,
        *,
        gateway: LlmGateway,
        executor: ToolExecutor,
        schema: ToolSchemaPort,
        reviewer: CallReviewer,
        observer: RunObserver,
        validator: ArgumentValidator,
        redactor: Redactor,
        clock: Callable[[], float],
        prices: PriceList | None,
    ) -> None:
        self._gateway = gateway
        self._executor = executor
        self._schema = schema
        self._reviewer = reviewer
        self._observer = observer
        self._validator = validator
        self._redactor = redactor
        self._clock = clock
        self._prices = prices
        self.approved: ApprovedPlan | None = None
        """The approved plan once the phase ended with one."""

    async def run(
        self,
        request: RunRequest,
        state: RunState,
        available: ToolSpec,
        execution_tools: Schemas,
        *,
        ask: Ask,
        settle: Settle,
        after_batch: AfterBatch,
        rejections: RejectionCounter,
    ) -> Stop | TurnInput:
        """Plan until a plan is approved; return the execution phase's first input, or the run's stop."""
        params = request.params
        offered = ToolSpec([*available.low_risk_tools(), PROPOSE_PLAN_TOOL])
        schemas = {tool.name: self._schema.tool_to_schema(tool) for tool in offered}
        tools = list(schemas.values())
        events = PlanEvents(self._observer, lambda: state.turns)
        executor = PlanningExecutor(self._executor, offered)
        batch = ToolBatch(
            executor=executor,
            reviewer=PlanningReviewer(self._reviewer, events.proposed),
            observer=events,
            validator=self._validator,
            offered=offered,
            schemas=schemas,
            max_parallel=params.max_parallel_tools,
            tool_timeout=params.tool_timeout_seconds,
            allow_high_risk=True,  # propose_plan is reviewed; PlanningReviewer refuses every other call
            redactor=self._redactor,
            clock=self._clock,
            spending=state.reviewers,
            guard=RepeatGuard(params.max_repeated_calls),
        )
        self._reopen(state, request.model_id, planning_prompt(request.system_prompt))
        planned = 0
        if request.resume is not None:
            events.expect(request.resume.calls)
            outcome = await settle(request.resume, batch, tools)
        else:
            outcome = TurnInput.user(request.task, tools, request.task_images)
        while True:
            if executor.approved is not None and isinstance(outcome, TurnInput):
                return self._execute(request, state, executor, outcome, execution_tools)
            if not isinstance(outcome, TurnInput):
                return outcome
            if planned >= params.max_plan_turns:
                detail = say.no_plan(params.max_plan_turns)
                state.close(state.session, self._observer, None, say.not_executed(detail))  # keep history valid
                return RunStopReason.NO_PLAN, detail
            planned += 1
            outcome = await self._turn(state, outcome, params, batch, events, tools, ask, after_batch, rejections)

    async def _turn(
        self,
        state: RunState,
        turn_input: TurnInput,
        params: ExecutionParams,
        batch: ToolBatch,
        events: PlanEvents,
        tools: Schemas,
        ask: Ask,
        after_batch: AfterBatch,
        rejections: RejectionCounter,
    ) -> Stop | TurnInput:
        """One planning turn: ask, then run the calls; the next input or the stop."""
        state.turns += 1
        self._observer.on_event(TurnStarted(turn=state.turns))
        response = await ask(turn_input)
        calls = response.tool_calls()
        stop = state.stop_after(response, params.max_total_tokens) or state.over_cost(self._prices)
        if stop is not None:
            if calls:
                state.close(state.session, self._observer, TurnCalls(calls), say.not_executed(str(stop[1])))
            self._observer.on_event(TurnFinished(turn=state.turns))
            return stop
        if not calls:
            self._observer.on_event(TurnFinished(turn=state.turns))
            return TurnInput.user(say.PLAN_NUDGE, tools)
        pending = TurnCalls(calls)
        state.pending = pending
        events.expect(calls)
        context = partial(_plan_context, state.run_id, state.task, response.text_content())
        await batch.run(pending, review_context=context, rejections=rejections)
        self._observer.on_event(TurnFinished(turn=state.turns))
        return after_batch(pending, tools)

    def _execute(
        self,
        request: RunRequest,
        state: RunState,
        executor: PlanningExecutor,
        answer: TurnInput,
        execution_tools: Schemas,
    ) -> TurnInput:
        """Start the execution phase: the plan joins the system prompt; all tools are offered."""
        assert executor.approved is not None
        self.approved = ApprovedPlan(plan=executor.approved, turn=state.turns)
        self._reopen(state, request.model_id, execution_prompt(request.system_prompt, self.approved))
        return TurnInput.answering(answer.results, execution_tools)

    def _reopen(self, state: RunState, model_id: str, prompt: str | None) -> None:
        """Go on with ``prompt`` as the system prompt: a session on the same history; compaction keeps it."""
        state.session = self._gateway.session(model_id, prompt, history=state.session.history())
        if state.fit is not None:
            state.fit.system_prompt = prompt


def _plan_context(run_id: str, task: str, text: str, tool: ToolDefinition, risk: RiskAssessment) -> ReviewContext:
    """What a reviewer is told about a planning-phase call (a plan: its task and the agent's words)."""
    return ReviewContext(
        run_id=run_id, task=task, tool=tool, risk=risk.level, risk_reason=risk.reason, assistant_text=text
    )
