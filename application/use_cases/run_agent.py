"""RunAgent: drive one task through the multi-turn native tool-use loop."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from collections.abc import Callable
from dataclasses import replace

from quorum.application import model_wording as say
from quorum.application.argument_validation import ArgumentValidator
from quorum.application.call_ids import CallIds
from quorum.application.context_fit import ContextFit
from quorum.application.execution import ExecutionParams, RunRequest, RunResult
from quorum.application.fallback import FallbackGateway
from quorum.application.hooks import RunHooks
from quorum.application.output_schema import AnswerSchema
from quorum.application.plan_mode import execution_prompt
from quorum.application.ports.hooks import HookRunner
from quorum.application.ports.llm import LlmGateway, TurnInput
from quorum.application.ports.model_data import ContextWindows
from quorum.application.ports.observer import RunObserver
from quorum.application.ports.pricing import PriceList
from quorum.application.ports.reviewer import CallReviewer
from quorum.application.ports.run_store import RunSummary
from quorum.application.ports.tool_executor import ToolExecutor
from quorum.application.ports.tool_schema import ToolSchemaPort
from quorum.application.redaction import RedactingObserver
from quorum.application.run_context import (
    conversation_key,
    current_conversation,
    current_run_events,
    current_run_id,
    current_run_model,
)
from quorum.application.succeeded_calls import SucceededCalls, current_succeeded_calls
from quorum.application.tool_batch import RejectionCounter, Unrun
from quorum.application.use_cases.execution_phase import ExecutionPhase
from quorum.application.use_cases.plan_phase import PlanPhase, plans
from quorum.application.use_cases.run import Run
from quorum.application.use_cases.run_deps import RunDeps
from quorum.application.use_cases.run_state import AnsweringModel, RunState, Stop
from quorum.application.use_cases.stop_detail import stop_detail
from quorum.domain.errors import RunFailure
from quorum.domain.events import ModelFallback, RunFinished, RunStarted, RunStopReason
from quorum.domain.secrets import Redactor
from quorum.domain.text import valid_unicode
from quorum.domain.tools import ToolSpec


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
    reviewer's context, and ``max_tool_turns`` counts the turns after it. Both phases repeat the
    same turn (``take_turn``) on the same ``Run``.
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
        hooks: HookRunner | None = None,
    ) -> None:
        redactor = redactor or Redactor()
        self._deps = RunDeps(
            gateway=gateway,
            executor=executor,
            schema=schema,
            reviewer=reviewer,
            observer=RedactingObserver(observer, redactor),
            validator=ArgumentValidator(),
            redactor=redactor,
            clock=clock,
            prices=prices,
            windows=windows,
            hooks=hooks,
        )
        self._new_run_id = new_run_id

    @property
    def _schema(self) -> ToolSchemaPort:
        """The schema port (a test builds a second agent with the first one's)."""
        return self._deps.schema

    def end_cancelled(self, run: RunSummary, model_id: str, detail: str) -> RunResult:
        """End the recorded ``run``, which has nothing left to run, ``cancelled``: its resumed start and its end only.

        For a run stopped ``awaiting_approval`` with no call pending (a run recorded before call
        ids were made unique could be left so): nothing is asked or executed, so it can always be
        cancelled. Its turns, tokens and cost stay those recorded before.
        """
        cancelled = RunStopReason.CANCELLED
        self._deps.observer.on_event(RunStarted(run_id=run.run_id, model=model_id, task=run.task, resumed=True))
        self._deps.observer.on_event(
            RunFinished(
                stop_reason=cancelled, turns=run.turns, output="", usage=run.usage, detail=detail, cost=run.cost
            )
        )
        return RunResult(
            run_id=run.run_id,
            stop_reason=cancelled,
            turns=run.turns,
            output="",
            usage=run.usage,
            detail=detail,
            cost=run.cost,
        )

    async def execute(self, request: RunRequest) -> RunResult:
        """Run ``request`` to its end and return how it ended.

        Raises:
            UsageError: before the run starts (unknown provider, bad model id, missing key).
            asyncio.CancelledError: when the caller cancels, after ``run_finished``.
        """
        run = self._start(request)
        params = request.params
        try:
            async with asyncio.timeout(params.timeout_seconds) as deadline:
                reason, detail = await self._loop(run)
        except TimeoutError:
            if not deadline.expired():
                raise
            reason, detail = RunStopReason.TIMEOUT, say.run_timed_out(params.timeout_seconds)
            run.close(Unrun.cancelled(detail))
        except asyncio.CancelledError:
            run.close(Unrun.cancelled(say.RUN_CANCELLED))
            self._finish(run.state, RunStopReason.CANCELLED, say.RUN_CANCELLED, params)
            raise
        except RunFailure as failure:
            run.close(Unrun.stopping(str(failure)))
            reason, detail = RunStopReason.ERROR, str(failure)
        return self._finish(run.state, reason, detail, params)

    def _start(self, request: RunRequest) -> Run:
        """Open the run's session and state, set the run's context, emit ``run_started``.

        Raises:
            UsageError, ConfigurationError: from ``LlmGateway.session``, before anything is emitted.
        """
        if request.approved_plan is not None:  # a continued plan-mode run: its plan stays in the system prompt
            prompt = execution_prompt(request.system_prompt, request.approved_plan)
            request = request.model_copy(update={"system_prompt": prompt})
        if request.output_schema is not None:  # said in words too, for a provider that cannot ask for it
            note = say.answer_schema_note(json.dumps(AnswerSchema(request.output_schema).asked))
            request = request.model_copy(update={"system_prompt": f"{request.system_prompt or ''}\n\n{note}".strip()})
        params = request.params
        answering = AnsweringModel(request.model_id)
        deps = self._with_fallbacks(request, answering)
        session = deps.gateway.session(request.model_id, request.system_prompt, history=request.history)
        state = RunState(
            run_id=request.run_id or self._new_run_id(),
            task=request.task,
            session=session,
            rejections=RejectionCounter(limit=params.max_rejections),
            model_id=request.model_id,
            cost_cap=params.max_cost_usd,
            plan=request.approved_plan,
            answering=answering,
        )
        if deps.hooks is not None:
            session_id = request.session_id or state.run_id
            state.hooks = RunHooks(deps.hooks, deps.redactor, session_id=session_id, run_id=state.run_id)
        if params.compact == "auto":
            state.fit = ContextFit.for_run(request, deps.gateway, deps.windows, deps.observer)
            state.fit.hooks = state.hooks
        run = Run(deps, state, request)
        current_run_id.set(state.run_id)  # this task's context: its tool calls see their run
        current_succeeded_calls.set(SucceededCalls.of(request.history, request.resume))
        state.call_ids = CallIds.of(request.history, request.resume.calls if request.resume else ())
        current_run_model.set(request.model_id)
        current_conversation.set(conversation_key(request.history, request.task))
        current_run_events.set(run.report)
        resumed = request.resume is not None
        started = RunStarted(
            run_id=state.run_id,
            model=request.model_id,
            task=request.task,
            resumed=resumed,
            output_schema=request.output_schema,
        )
        deps.observer.on_event(started)
        return run

    def _with_fallbacks(self, request: RunRequest, answering: AnsweringModel) -> RunDeps:
        """The run's deps: its sessions through ``[agent] fallback_models`` when there are any.

        A move is emitted as a ``model_fallback`` event and kept in ``answering``: the responses
        after it are priced as the model that answered them.
        """
        fallbacks = request.params.fallback_models
        if not fallbacks:
            return self._deps
        observer = self._deps.observer

        def fell_back(event: ModelFallback) -> None:
            answering.model_id = event.to
            observer.on_event(event)

        gateway = FallbackGateway(self._deps.gateway, {request.model_id: fallbacks}, fell_back)
        return replace(self._deps, gateway=gateway)

    async def _loop(self, run: Run) -> Stop:
        """The run's phases: planning first in plan mode, else a deferred turn settled, then execution."""
        request, state = run.request, run.state
        available = await self._deps.executor.list_tools()
        state.offered = (
            ToolSpec(available.low_risk_tools(), withheld=available.withheld)
            if run.params.tools == "low_risk_only"
            else available
        )
        run, blocked = await self._opening(run)
        if blocked is not None:
            return blocked
        request = run.request
        execution = ExecutionPhase(run, state.offered)
        first: Stop | TurnInput
        if plans(request):  # plan mode: plan and have the plan reviewed first
            first = await PlanPhase(run, available).plan(execution.batch.tools)
        elif request.resume is not None:
            first = await run.settle(request.resume, execution.batch)
        else:
            first = TurnInput.user(request.task, execution.batch.tools, request.task_images)
        if not isinstance(first, TurnInput):
            return first
        return await execution.repeat(first)

    @staticmethod
    async def _opening(run: Run) -> tuple[Run, Stop | None]:
        """The ``session_start`` (a new conversation) and ``user_prompt_submit`` hooks on the task.

        Returns the run with the context they add after the task, or the stop when a
        ``user_prompt_submit`` hook blocks the message (the model is not asked). A continued
        run (``resume``) has no new message: no hook runs.
        """
        hooks, request = run.state.hooks, run.request
        if hooks is None or request.resume is not None:
            return run, None
        added = [await hooks.on_session_start("startup")] if not request.history else []
        check = await hooks.on_prompt(request.task)
        if check.blocked_by is not None:
            run.state.blocked_by = check.blocked_by
            return run, (RunStopReason.REJECTED, check.detail)
        extra = "\n\n".join(text for text in (*added, check.context) if text)
        if not extra:
            return run, None
        return replace(run, request=request.model_copy(update={"task": f"{request.task}\n\n{extra}"})), None

    def _finish(self, state: RunState, reason: RunStopReason, detail: str | None, params: ExecutionParams) -> RunResult:
        if detail is not None:
            detail = self._deps.redactor.text(valid_unicode(detail)[0])
        state.last_text = self._deps.redactor.text(valid_unicode(state.last_text)[0])
        usage = state.total_usage()
        cost = state.cost(self._deps.prices)
        stop = stop_detail(reason, params, state, self._deps.prices, state.waiting)
        event = RunFinished(
            stop_reason=reason,
            turns=state.turns,
            output=state.last_text,
            usage=usage,
            detail=detail,
            cost=cost,
            stop=stop,
        )
        self._deps.observer.on_event(event)
        return RunResult(
            run_id=state.run_id,
            stop_reason=reason,
            turns=state.turns,
            output=state.last_text,
            usage=usage,
            detail=detail,
            cost=cost,
        )
