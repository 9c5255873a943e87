"""RunAgent: drive one task through the multi-turn native tool-use loop."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from functools import partial
from typing import Any

from quorum.application import model_wording as say
from quorum.application.argument_validation import ArgumentValidator
from quorum.application.context_fit import ContextFit
from quorum.application.deferral import PendingTurn
from quorum.application.execution import ExecutionParams, RunRequest, RunResult
from quorum.application.loop_guard import RepeatGuard
from quorum.application.plan_mode import execution_prompt
from quorum.application.ports.llm import LlmGateway, LlmSession, TurnInput
from quorum.application.ports.model_data import ContextWindows
from quorum.application.ports.observer import RunObserver
from quorum.application.ports.pricing import PriceList
from quorum.application.ports.reviewer import CallReviewer, ReviewContext
from quorum.application.ports.tool_executor import ToolExecutor
from quorum.application.ports.tool_schema import ToolSchemaPort
from quorum.application.redaction import RedactingObserver
from quorum.application.run_context import current_run_events, current_run_id, current_run_model
from quorum.application.tool_batch import RejectionCounter, ToolBatch, TurnCalls
from quorum.application.use_cases import model_request
from quorum.application.use_cases.plan_phase import PlanPhase, plans
from quorum.application.use_cases.run_state import RunState, Stop
from quorum.application.use_cases.stop_detail import stop_detail
from quorum.domain.errors import ContextTooLong, RunFailure
from quorum.domain.events import (
    McpSampling,
    RunEvent,
    RunFinished,
    RunStarted,
    RunStopReason,
    TurnFinished,
    TurnStarted,
)
from quorum.domain.plans import ApprovedPlan
from quorum.domain.responses import LlmResponse, Usage
from quorum.domain.secrets import Redactor
from quorum.domain.text import valid_unicode
from quorum.domain.tools import RiskAssessment, ToolDefinition, ToolSpec


class RunAgent:
    """Runs a task: send with tools → execute the calls → send the results → repeat.

    The loop rules (turns, risk-aware scheduling, review, limits, timeouts, cancellation) are
    documented in README.md and each is pinned by a unit test. ``execute`` never raises for what
    happens during the run: failures end it with a stop reason, and every event reaches the
    observer, ``run_finished`` last. Caller cancellation is the exception: after emitting
    ``run_finished`` (``cancelled``) the ``CancelledError`` propagates, as asyncio requires.

    ``redactor`` holds the secrets Quorum knows: their values are replaced in tool outputs before
    the model sees them, in every event, and in the returned result.

    ``prices`` prices the agent's and the reviewer models' tokens for ``run_finished.cost``;
    without it, or when a model's price is unknown, the cost is None. With ``max_cost_usd`` the
    spending is priced after each response and each batch of calls (reviewers vote in batches),
    and the run stops ``max_cost`` once it passed the cap: the request that passes it is the last.
    Unpriced spending cannot be capped; the composition warns about that before the run.

    MCP sampling (a server asking for a model, reported by an ``mcp_sampling`` event emitted in
    the run) spends on the run's behalf: its tokens join the agent's ``usage`` and the token
    budget, and are priced with the model that served them.

    Plan mode (``params.plan``, or a continued run whose open turn holds a plan) starts with the
    planning phase (``PlanPhase``); the approved plan then joins the system prompt and every
    reviewer's context, and ``max_tool_turns`` counts the turns after it.
    """

    def __init__(
        self,
        *,
        gateway: LlmGateway,
        executor: ToolExecutor,
        schema: ToolSchemaPort,
        reviewer: CallReviewer,
        observer: RunObserver,
        redactor: Redactor | None = None,
        clock: Callable[[], float] = time.perf_counter,
        new_run_id: Callable[[], str] = lambda: uuid.uuid4().hex[:16],
        prices: PriceList | None = None,
        windows: ContextWindows | None = None,
    ) -> None:
        self._gateway = gateway
        self._executor = executor
        self._schema = schema
        self._reviewer = reviewer
        self._redactor = redactor or Redactor()
        self._observer: RunObserver = RedactingObserver(observer, self._redactor)
        self._clock = clock
        self._new_run_id = new_run_id
        self._validator = ArgumentValidator()
        self._prices = prices
        self._windows = windows

    async def execute(self, request: RunRequest) -> RunResult:
        """Run ``request`` to its end and return how it ended.

        Raises:
            UsageError: before the run starts (unknown provider, bad model id, missing key).
            asyncio.CancelledError: when the caller cancels, after ``run_finished``.
        """
        if request.approved_plan is not None:  # a continued plan-mode run: its plan stays in the system prompt
            prompt = execution_prompt(request.system_prompt, request.approved_plan)
            request = request.model_copy(update={"system_prompt": prompt})
        session = self._gateway.session(request.model_id, request.system_prompt, history=request.history)
        state = RunState(
            run_id=request.run_id or self._new_run_id(),
            task=request.task,
            model_id=request.model_id,
            cost_cap=request.params.max_cost_usd,
        )
        current_run_id.set(state.run_id)  # this task's context: its tool calls see their run
        current_run_model.set(request.model_id)
        current_run_events.set(partial(self._run_event, state))
        state.session = session
        resumed = request.resume is not None
        self._observer.on_event(
            RunStarted(run_id=state.run_id, model=request.model_id, task=request.task, resumed=resumed)
        )
        params = request.params
        try:
            async with asyncio.timeout(params.timeout_seconds) as deadline:
                reason, detail = await self._loop(request, session, state)
        except TimeoutError:
            if not deadline.expired():
                raise
            reason, detail = RunStopReason.TIMEOUT, say.run_timed_out(params.timeout_seconds)
            state.close(state.session, self._observer, None, say.cancelled(detail))
        except asyncio.CancelledError:
            state.close(state.session, self._observer, None, say.cancelled(say.RUN_CANCELLED))
            self._finish(state, RunStopReason.CANCELLED, say.RUN_CANCELLED, params)
            raise
        except RunFailure as failure:
            state.close(state.session, self._observer, None, say.not_executed(str(failure)))
            reason, detail = RunStopReason.ERROR, str(failure)
        return self._finish(state, reason, detail, params)

    def _run_event(self, state: RunState, event: RunEvent) -> None:
        """An event adapters emit in this run (``current_run_events``): counted if it spent tokens."""
        if isinstance(event, McpSampling) and event.model and event.usage.total_tokens:
            state.usage = state.usage + event.usage
            state.sampled.append((event.model, event.usage))
        self._observer.on_event(event)

    async def _loop(self, request: RunRequest, session: LlmSession, state: RunState) -> Stop:
        params = request.params
        available = await self._executor.list_tools()
        offered = ToolSpec(available.low_risk_tools()) if params.tools == "low_risk_only" else available
        state.offered = offered
        schemas = {tool.name: self._schema.tool_to_schema(tool) for tool in offered}
        wire_tools = list(schemas.values())
        batch = ToolBatch(
            executor=self._executor,
            reviewer=self._reviewer,
            observer=self._observer,
            validator=self._validator,
            offered=offered,
            schemas=schemas,
            max_parallel=params.max_parallel_tools,
            tool_timeout=params.tool_timeout_seconds,
            allow_high_risk=params.tools == "all",
            redactor=self._redactor,
            clock=self._clock,
            spending=state.reviewers,
            guard=RepeatGuard(params.max_repeated_calls),
        )
        rejections = RejectionCounter(limit=params.max_rejections)
        if params.compact == "auto":
            state.fit = ContextFit.for_run(request, self._gateway, self._windows, self._observer)
        turn_input = TurnInput.user(request.task, wire_tools, request.task_images)
        approved = request.approved_plan
        if plans(request):  # plan mode: plan and have the plan reviewed first
            planned, approved = await self._plan(request, session, state, offered, wire_tools, rejections)
            if not isinstance(planned, TurnInput):
                return planned
            turn_input = planned
        elif request.resume is not None:
            settled = await self._settle(request.resume, session, state, batch, rejections, wire_tools)
            if not isinstance(settled, TurnInput):
                return settled
            turn_input = settled
        while True:
            state.turns += 1
            turn = state.turns
            self._observer.on_event(TurnStarted(turn=turn))
            response = await self._ask(session, turn_input, params.stream, state)
            calls = response.tool_calls()
            stop = state.stop_after(response, params.max_total_tokens) or state.over_cost(self._prices)
            if stop is not None:
                if calls:
                    state.close(state.session, self._observer, TurnCalls(calls), say.not_executed(str(stop[1])))
                self._observer.on_event(TurnFinished(turn=turn))
                return stop
            if not calls:
                self._observer.on_event(TurnFinished(turn=turn))
                return RunStopReason.END_TURN, None

            pending = TurnCalls(calls)
            state.pending = pending
            if turn - (approved.turn if approved else 0) > params.max_tool_turns:  # planning turns apart
                return await self._turn_limit(request, session, state, pending)
            plan = approved.plan.numbered() if approved else ""
            context = partial(_review_context, state.run_id, request.task, response.text_content(), plan)
            await batch.run(pending, review_context=context, rejections=rejections)
            self._observer.on_event(TurnFinished(turn=turn))
            wire_tools = await self._still_offered(schemas)
            after = self._after_batch(session, state, pending, rejections, wire_tools)
            if not isinstance(after, TurnInput):
                return after
            turn_input = after

    async def _still_offered(self, schemas: dict[str, dict[str, Any]]) -> list[dict[str, Any]]:
        """The run's tools the executor still lists, listed again before the next model request.

        A tool source may withdraw a tool mid-run (an MCP server whose tool changed since it was
        pinned); it is then left out of the next request. Tools are never added mid-run.
        """
        listed = set((await self._executor.list_tools()).names())
        return [schema for name, schema in schemas.items() if name in listed]

    async def _plan(
        self,
        request: RunRequest,
        session: LlmSession,
        state: RunState,
        available: ToolSpec,
        wire_tools: list[dict[str, Any]],
        rejections: RejectionCounter,
    ) -> tuple[Stop | TurnInput, ApprovedPlan | None]:
        """Run the planning phase (``PlanPhase``) on this run's session, state and events."""
        phase = PlanPhase(
            gateway=self._gateway,
            executor=self._executor,
            schema=self._schema,
            reviewer=self._reviewer,
            observer=self._observer,
            validator=self._validator,
            redactor=self._redactor,
            clock=self._clock,
            prices=self._prices,
        )
        outcome = await phase.run(
            request,
            state,
            available,
            wire_tools,
            ask=lambda turn: self._ask(session, turn, request.params.stream, state),
            settle=lambda resume, batch, tools: self._settle(resume, session, state, batch, rejections, tools),
            after_batch=lambda pending, tools: self._after_batch(session, state, pending, rejections, tools),
            rejections=rejections,
        )
        return outcome, phase.approved

    async def _settle(
        self,
        resume: PendingTurn,
        session: LlmSession,
        state: RunState,
        batch: ToolBatch,
        rejections: RejectionCounter,
        wire_tools: list[dict[str, Any]],
    ) -> Stop | TurnInput:
        """Go on with a turn left open by deferred review: apply the decisions, then as after a batch."""
        state.turns = resume.turn
        before = resume.usage_before
        state.usage = Usage(input_tokens=before.input_tokens, output_tokens=before.output_tokens)
        state.reviewers_before, state.cost_before = before.reviewers, resume.cost_before
        index_of = {call.native_id: index for index, call in enumerate(resume.calls)}
        pending = TurnCalls(
            resume.calls,
            results={index_of[r.call_id]: r for r in resume.results},
            announced=set(range(len(resume.calls))),
            waiting={index_of[r.call_id]: r for r in resume.waiting},
        )
        state.pending = pending
        decisions = {index_of[call_id]: decision for call_id, decision in resume.decisions.items()}
        await batch.settle(pending, decisions, rejections=rejections)
        for request in pending.waiting.values():  # still open: say so again in this part of the run
            self._observer.on_event(request)
        return self._after_batch(session, state, pending, rejections, wire_tools)

    def _after_batch(
        self,
        session: LlmSession,
        state: RunState,
        pending: TurnCalls,
        rejections: RejectionCounter,
        wire_tools: list[dict[str, Any]],
    ) -> Stop | TurnInput:
        """The stop a batch's outcome calls for, or the turn sending its results."""
        if rejections.exhausted:
            note = say.not_executed(say.rejections_exhausted(rejections.limit))
            state.close(state.session, self._observer, pending, note)
            return RunStopReason.REJECTED, f"{rejections.limit} consecutive tool calls were rejected by review"
        waiting = [pending.waiting[i] for i in pending.missing() if i in pending.waiting]
        over = state.over_cost(self._prices)  # the reviewers spent too
        if over is not None and not waiting:
            state.close(state.session, self._observer, pending, say.not_executed(str(over[1])))
            return over
        if waiting:
            # The turn stays open: its calls are answered when the run continues (ContinueRun).
            state.pending = None
            state.waiting = tuple(request.call_id for request in waiting)
            ids = ", ".join(state.waiting)
            return RunStopReason.AWAITING_APPROVAL, f"{len(waiting)} call(s) wait for a person: {ids}"
        return TurnInput.answering(pending.ordered(), wire_tools)

    async def _turn_limit(self, request: RunRequest, session: LlmSession, state: RunState, pending: TurnCalls) -> Stop:
        params = request.params
        detail = say.turn_limit_reached(params.max_tool_turns)
        note = say.not_executed(detail)
        if params.on_turn_limit == "stop":
            state.close(state.session, self._observer, pending, note)
            self._observer.on_event(TurnFinished(turn=state.turns))
            return RunStopReason.MAX_TURNS, detail
        state.answer_missing(pending, self._observer, note)
        summary = TurnInput.answering(pending.ordered(), None, note=say.TURN_LIMIT_NOTE)
        response = await self._ask(session, summary, params.stream, state)
        leftover = response.tool_calls()
        if leftover:  # the model ignored the instruction; keep the history valid all the same
            # Only results are emitted for these: a tool_call event here would be read as part of
            # the turn's first response by anything rebuilding the conversation from the events.
            unannounced = TurnCalls(leftover, announced=set(range(len(leftover))))
            state.close(state.session, self._observer, unannounced, note)
        self._observer.on_event(TurnFinished(turn=state.turns))
        return RunStopReason.MAX_TURNS, detail

    async def _ask(self, session: LlmSession, turn: TurnInput, stream: bool, state: RunState) -> LlmResponse:
        """Send ``turn`` on the run's session (``state.session``: compaction may have replaced ``session``).

        A provider refusing the request as too long (``ContextTooLong``) gets one compaction and
        one retry; a second refusal ends the run as any provider error does.
        """
        fit: ContextFit | None = state.fit
        if fit is not None:
            await fit.before(state, turn)
        if turn.results:
            state.pending = None  # the session owns the results from here on
        try:
            response = await model_request.request(state.session, turn, stream=stream, observer=self._observer)
        except ContextTooLong:
            if fit is None or not await fit.before(state, turn, force=True):
                raise
            response = await model_request.request(state.session, turn, stream=stream, observer=self._observer)
        state.count(response)
        if fit is not None:
            fit.after(response, state.session)
        return response

    def _finish(self, state: RunState, reason: RunStopReason, detail: str | None, params: ExecutionParams) -> RunResult:
        if detail is not None:
            detail = self._redactor.text(valid_unicode(detail)[0])
        state.last_text = self._redactor.text(valid_unicode(state.last_text)[0])
        usage = state.total_usage()
        cost = state.cost(self._prices)
        stop = stop_detail(reason, params, state, self._prices, state.waiting)
        event = RunFinished(
            stop_reason=reason,
            turns=state.turns,
            output=state.last_text,
            usage=usage,
            detail=detail,
            cost=cost,
            stop=stop,
        )
        self._observer.on_event(event)
        return RunResult(
            run_id=state.run_id,
            stop_reason=reason,
            turns=state.turns,
            output=state.last_text,
            usage=usage,
            detail=detail,
            cost=cost,
        )


def _review_context(
    run_id: str, task: str, text: str, plan: str, tool: ToolDefinition, risk: RiskAssessment
) -> ReviewContext:
    """What a reviewer is told about a call of the response whose text is ``text`` (and the approved ``plan``)."""
    return ReviewContext(
        run_id=run_id, task=task, tool=tool, risk=risk.level, risk_reason=risk.reason, assistant_text=text, plan=plan
    )
