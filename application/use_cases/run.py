"""``Run``: one run in progress — its dependencies, its state, and what every phase does on it.

The execution phase and plan mode's planning phase both ask the model, close the open turn, settle
a turn left open by deferred review and judge a batch's outcome through the same ``Run``; what
differs between them is a ``Phase`` (``quorum.application.use_cases.turn``).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable
from dataclasses import dataclass

from quorum.application import model_wording as say
from quorum.application.deferral import PendingTurn
from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.loop_guard import RepeatGuard
from quorum.application.ports.llm import ToolSchemas, TurnInput
from quorum.application.ports.observer import RunObserver
from quorum.application.ports.reviewer import CallReviewer
from quorum.application.ports.tool_executor import ToolExecutor
from quorum.application.tool_batch import ToolBatch, TurnCalls, Unrun
from quorum.application.use_cases import model_request
from quorum.application.use_cases.run_deps import RunDeps
from quorum.application.use_cases.run_state import RunState, Stop
from quorum.domain.errors import ContextTooLong
from quorum.domain.events import McpSampling, RunEvent, RunFinished, RunStopReason
from quorum.domain.responses import LlmResponse
from quorum.domain.tool_profile import lean
from quorum.domain.tools import RiskLevel, ToolSpec


@dataclass(frozen=True)
class Run:
    """One run: the agent's ``deps``, this run's ``state`` and the ``request`` it executes.

    Every event goes to ``deps.observer`` (redacted). Whatever stops the run, ``close`` answers
    the open turn's calls, so the session's history stays valid.
    """

    deps: RunDeps
    state: RunState
    request: RunRequest

    @property
    def params(self) -> ExecutionParams:
        return self.request.params

    def emit(self, event: RunEvent) -> None:
        """Send ``event`` to the run's observer."""
        self.deps.observer.on_event(event)

    def report(self, event: RunEvent) -> None:
        """An event adapters emit in this run (``current_run_events``): counted if it spent tokens.

        A child run's events (a delegation's, tagged with its ``run_id``) pass through; its
        ``run_finished`` brings what the child spent into this run's usage and cost.
        """
        child = event.run_id is not None and event.run_id != self.state.run_id
        if child and isinstance(event, RunFinished):
            self.state.delegated(event.usage, event.cost)
        elif not child and isinstance(event, McpSampling) and event.model and event.usage.total_tokens:
            self.state.usage = self.state.usage + event.usage
            self.state.sampled.append((event.model, event.usage))
        self.emit(event)

    def batch(
        self,
        *,
        executor: ToolExecutor,
        reviewer: CallReviewer,
        observer: RunObserver,
        offered: ToolSpec,
        allow_high_risk: bool,
    ) -> ToolBatch:
        """A phase's ``ToolBatch``: ``offered`` run by ``executor``, reviewed by ``reviewer``, under the run's limits.

        Its loop guard is its own; the reviewers' tokens count in the run's spending.
        """
        params = self.params
        shown = (
            {t.name: self.deps.schema.tool_to_schema(lean(t)) for t in offered}
            if params.tools_profile == "lean"
            else None
        )
        return ToolBatch(
            executor=executor,
            reviewer=reviewer,
            observer=observer,
            validator=self.deps.validator,
            offered=offered,
            schemas={tool.name: self.deps.schema.tool_to_schema(tool) for tool in offered},
            max_parallel=params.max_parallel_tools,
            tool_timeout=params.tool_timeout_seconds,
            allow_high_risk=allow_high_risk,
            redactor=self.deps.redactor,
            clock=self.deps.clock,
            spending=self.state.reviewers,
            guard=RepeatGuard(params.max_repeated_calls),
            shown=shown,
            hooks=self.state.hooks,
        )

    async def ask(self, turn: TurnInput) -> LlmResponse:
        """Send ``turn`` on the run's session (``state.session``: compaction may replace it) and count the response.

        A provider refusing the request as too long (``ContextTooLong``) gets one compaction and
        one retry; a second refusal ends the run as any provider error does.
        """
        state, params, observer = self.state, self.params, self.deps.observer
        if state.answer_schema is not None and turn.answer_schema is None:
            turn = dataclasses.replace(turn, answer_schema=state.answer_schema)

        def send() -> Awaitable[LlmResponse]:  # on state.session as it is then: compaction may replace it
            return model_request.request(
                state.session, turn, stream=params.stream, observer=observer, reasoning=params.reasoning
            )

        fit = state.fit
        if fit is not None:
            await fit.before(state, turn)
        if turn.results:
            state.pending = None  # the session owns the results from here on
        try:
            response = await send()
        except ContextTooLong:
            if fit is None or not await fit.before(state, turn, force=True):
                raise
            response = await send()
        state.count(response)
        if fit is not None:
            fit.after(response, state.session)
        return response

    def stop_after(self, response: LlmResponse) -> Stop | None:
        """The stop ``response`` calls for: the token budget, the output token limit, or the cost cap."""
        state = self.state
        return state.stop_after(response, self.params.max_total_tokens) or state.over_cost(self.deps.prices)

    def answer_missing(self, pending: TurnCalls, unrun: Unrun) -> None:
        """Answer every call of ``pending`` without a result as ``unrun`` says, announcing the call first if need be."""
        for index in pending.missing():
            if index not in pending.announced:
                tool = self.state.offered.get(pending.calls[index].name)
                pending.announce(index, tool.risk if tool is not None else RiskLevel.HIGH, self.deps.observer)
            pending.refuse(index, unrun, self.deps.observer)

    def close(self, unrun: Unrun, turn: TurnCalls | None = None) -> None:
        """Answer the open calls of ``turn`` (None: the pending turn) as ``unrun`` says, recorded without a request.

        The results join the session's history, so it stays valid whatever stopped the run.
        """
        pending = turn if turn is not None else self.state.pending
        self.state.pending = None
        if pending is None:
            return
        self.answer_missing(pending, unrun)
        self.state.session.record(pending.for_session())

    async def settle(self, resume: PendingTurn, batch: ToolBatch) -> Stop | TurnInput:
        """Go on with a turn left open by deferred review: apply the decisions with ``batch``, then as after a batch."""
        self.state.continue_from(resume)
        index_of = {call.native_id: index for index, call in enumerate(resume.calls)}
        pending = TurnCalls(
            resume.calls,
            results={index_of[r.call_id]: r for r in resume.results},
            announced=set(range(len(resume.calls))),
            waiting={index_of[r.call_id]: r for r in resume.waiting},
        )
        self.state.pending = pending
        decisions = {index_of[call_id]: decision for call_id, decision in resume.decisions.items()}
        await batch.settle(pending, decisions, rejections=self.state.rejections)
        for request in pending.waiting.values():  # still open: say so again in this part of the run
            self.emit(request)
        return self.after_batch(pending, batch.tools)

    def after_batch(self, pending: TurnCalls, tools: ToolSchemas) -> Stop | TurnInput:
        """The stop a batch's outcome calls for, or the turn sending its results (offering ``tools``)."""
        rejections = self.state.rejections
        if pending.looping is not None:
            self.close(Unrun.stopping(pending.looping), pending)
            return RunStopReason.LOOP_DETECTED, pending.looping
        if rejections.exhausted:
            self.close(Unrun.stopping(say.rejections_exhausted(rejections.limit)), pending)
            return RunStopReason.REJECTED, f"{rejections.limit} consecutive tool calls were rejected by review"
        waiting = [pending.waiting[i] for i in pending.missing() if i in pending.waiting]
        over = self.state.over_cost(self.deps.prices)  # the reviewers spent too
        if over is not None and not waiting:
            self.close(Unrun.stopping(str(over[1])), pending)
            return over
        if waiting:
            # The turn stays open: its calls are answered when the run continues (ContinueRun).
            self.state.pending = None
            self.state.waiting = tuple(request.call_id for request in waiting)
            ids = ", ".join(self.state.waiting)
            return RunStopReason.AWAITING_APPROVAL, f"{len(waiting)} call(s) wait for a person: {ids}"
        return TurnInput.answering(pending.for_session(), tools)

    def reopen(self, prompt: str | None) -> None:
        """Go on with ``prompt`` as the system prompt: a session on the same history; compaction keeps it."""
        state = self.state
        state.session = self.deps.gateway.session(self.request.model_id, prompt, history=state.session.history())
        if state.fit is not None:
            state.fit.system_prompt = prompt
