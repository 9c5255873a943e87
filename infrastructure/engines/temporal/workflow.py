"""The run workflow: ``RunAgent``, ``ToolBatch`` and ``ReviewGate`` unchanged, their ports backed by activities.

Deterministic in the workflow: the loop, the scheduling of calls, the review gate (policy rules,
the panel's outcome, escalation), deferral and waiting for people. Activities: model requests,
tool calls, the panel's votes, run-log writes, claiming decisions (see ``activities``).

Workflow-side adapters implement the application's ports by calling ``workflow.execute_activity``:

- ``ActivitySession``: each request is one activity reading the conversation from the run log
  (recorded first, ``WorkflowRecorder.drain``) and returning only the new response, so the
  workflow history grows with each response, not with the whole conversation each turn.
- ``ActivityExecutor``: tools and their risks come from the worker (``Prepared``, ``CallFacts``);
  a high-risk call is one attempt only: an attempt whose outcome is unknown (worker lost,
  timed out) becomes an error result saying so, never a silent retry. Low-risk calls may retry.
- ``ActivityPanel`` (votes), ``FactsViewer`` (what policy rules see), ``WaitingHumanStep``.
- ``WorkflowRecorder``: the run's events, numbered here, appended to the run log by an activity.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Mapping, Sequence
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError, ApplicationError

with workflow.unsafe.imports_passed_through():
    from quorum.application.execution import RunRequest, RunResult
    from quorum.application.ports.approvals import CallDecision
    from quorum.application.ports.reviewer import ReviewContext
    from quorum.application.ports.run_store import RecordedEvent
    from quorum.application.ports.tool_executor import ToolOutcome
    from quorum.application.review_gate import ReviewGate
    from quorum.application.use_cases.run_agent import RunAgent
    from quorum.domain.errors import ProviderError
    from quorum.domain.events import ApprovalRequested, RunEvent, RunStarted, RunStopReason
    from quorum.domain.messages import Message
    from quorum.domain.policy import ArgumentView
    from quorum.domain.responses import LlmResponse, Usage
    from quorum.domain.review import ReviewDecision, Vote
    from quorum.domain.streaming import StreamCompleted, StreamEvent, StreamTextDelta
    from quorum.domain.tools import (
        Clearance,
        RiskAssessment,
        RiskLevel,
        ToolCall,
        ToolDefinition,
        ToolResultMessage,
        ToolSpec,
    )
    from quorum.infrastructure.engines.temporal.messages import (
        DECIDE_SIGNAL,
        STATUS_QUERY,
        WORKFLOW_NAME,
        CallFacts,
        Claimed,
        ClaimRequest,
        Decisions,
        ModelReply,
        ModelRequest,
        PanelRequest,
        Prepared,
        RecordBatch,
        RunSpec,
        ToolRequest,
        WorkflowStatus,
    )
    from quorum.infrastructure.review.human import decision_without_asking

UNKNOWN_OUTCOME = (
    "the outcome of this call is unknown: the worker executing it stopped or lost contact ({why}). "
    "It was not retried, as a high-risk call runs at most once. Check whether it took effect before trying again."
)
"""What the model sees of a high-risk call whose single attempt ended without a result."""

NO_DECISION = "no decision within [review] approval_timeout ({hours:g} h); rejected"

_QUICK = timedelta(seconds=60)
_MODEL = timedelta(minutes=10)
_ONCE = RetryPolicy(maximum_attempts=1)
_LOW_RISK = RetryPolicy(maximum_attempts=3, initial_interval=timedelta(seconds=1))
_RETRY = RetryPolicy(maximum_attempts=5, initial_interval=timedelta(seconds=1), maximum_interval=timedelta(seconds=30))


class WorkflowRecorder:
    """A ``RunObserver`` numbering the run's events and appending them to the run log in order.

    Events are buffered and written by one pump at a time (one local activity per batch: it runs
    on the worker holding the workflow, with no round trip through the server, and is safe to
    repeat after a crash since ``quorum.record`` skips sequence numbers already stored), so the
    log keeps their order. ``drain`` waits until everything emitted so far is recorded: the model
    request activity reads the conversation from the log, so it must follow its events.
    """

    def __init__(self, spec: RunSpec) -> None:
        self._spec = spec
        self._buffer: list[RecordedEvent] = []
        self._seq = 0
        self.recorded_seq = -1
        self._busy = False
        self._header_sent = False
        self.waiting: list[str] = []
        self.finished = False

    @property
    def last_seq(self) -> int:
        return self._seq - 1

    def on_event(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted):
            self.waiting = []
        elif isinstance(event, ApprovalRequested):
            self.waiting.append(event.call_id)
        self._buffer.append(RecordedEvent(seq=self._seq, at=workflow.now(), event=event))
        self._seq += 1
        if not self._busy:
            self._busy = True
            asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        try:
            while self._buffer:
                batch, self._buffer = tuple(self._buffer), []
                header = not self._header_sent
                await workflow.execute_local_activity(
                    "quorum.record",
                    RecordBatch(
                        run_id=self._spec.run_id,
                        workspace=self._spec.workspace,
                        header_task=self._spec.task if header else None,
                        header_model=self._spec.model_id if header else None,
                        parent_run_id=self._spec.parent_run_id,
                        events=batch,
                    ),
                    start_to_close_timeout=_QUICK,
                    retry_policy=_RETRY,
                )
                self._header_sent = True
                self.recorded_seq = batch[-1].seq
        finally:
            self._busy = False

    async def drain(self) -> None:
        """Wait until every event emitted so far is in the run log."""
        await workflow.wait_condition(lambda: not self._buffer and not self._busy)


class ReplyPrices:
    """``PriceList`` of the workflow: the prices workers attached to the responses (votes: unknown)."""

    def __init__(self) -> None:
        self.known: dict[tuple[str, int, int], float | None] = {}

    def cost(self, model_id: str, usage: Usage) -> float | None:
        return self.known.get((model_id, usage.input_tokens, usage.output_tokens))


class ActivityGateway:
    """``LlmGateway`` whose sessions request through the model activity."""

    def __init__(
        self, spec: RunSpec, recorder: WorkflowRecorder, facts: dict[str, CallFacts], prices: ReplyPrices
    ) -> None:
        self._spec = spec
        self._recorder = recorder
        self._facts = facts
        self._prices = prices

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> Any:
        return ActivitySession(self._spec, model_id, system_prompt, self._recorder, self._facts, self._prices)


class ActivitySession:
    """``LlmSession`` keeping no conversation: the run log holds it, the activity reads it."""

    def __init__(
        self,
        spec: RunSpec,
        model_id: str,
        system_prompt: str | None,
        recorder: WorkflowRecorder,
        facts: dict[str, CallFacts],
        prices: ReplyPrices,
    ) -> None:
        self._spec = spec
        self._model_id = model_id
        self._system_prompt = system_prompt
        self._recorder = recorder
        self._facts = facts
        self._prices = prices

    @property
    def model(self) -> str:
        return self._model_id.partition(":")[2]

    async def _request(self, tools: Sequence[dict[str, Any]] | None, note: str | None = None) -> LlmResponse:
        await self._recorder.drain()
        request = ModelRequest(
            run_id=self._spec.run_id,
            workspace=self._spec.workspace,
            model_id=self._model_id,
            system_prompt=self._system_prompt,
            tool_names=None if tools is None else tuple(str(t["name"]) for t in tools),
            note=note,
            after_seq=self._recorder.last_seq,
        )
        try:
            reply = await workflow.execute_activity(
                "quorum.model", request, result_type=ModelReply, start_to_close_timeout=_MODEL, retry_policy=_RETRY
            )
        except ActivityError as error:
            raise ProviderError(_cause(error), provider=self._model_id.partition(":")[0]) from None
        self._facts.update(reply.facts)
        usage = reply.response.usage
        self._prices.known[(self._model_id, usage.input_tokens, usage.output_tokens)] = reply.cost
        return reply.response

    async def send(self, content: str) -> LlmResponse:
        return await self._request(None)

    async def send_with_tools(self, content: str, tools: Sequence[dict[str, Any]]) -> LlmResponse:
        return await self._request(tools)

    async def send_tool_results(
        self, results: Sequence[ToolResultMessage], tools: Sequence[dict[str, Any]] | None, *, note: str | None = None
    ) -> LlmResponse:
        return await self._request(tools, note)

    async def _streamed(self, response: LlmResponse) -> AsyncIterator[StreamEvent]:
        if response.text_content():
            yield StreamTextDelta(text=response.text_content())
        yield StreamCompleted(response=response)

    async def send_streaming(self, content: str) -> AsyncIterator[StreamEvent]:
        async for event in self._streamed(await self._request(None)):
            yield event

    async def stream_with_tools(self, content: str, tools: Sequence[dict[str, Any]]) -> AsyncIterator[StreamEvent]:
        async for event in self._streamed(await self._request(tools)):
            yield event

    async def stream_tool_results(
        self, results: Sequence[ToolResultMessage], tools: Sequence[dict[str, Any]] | None, *, note: str | None = None
    ) -> AsyncIterator[StreamEvent]:
        async for event in self._streamed(await self._request(tools, note)):
            yield event

    def record_tool_results(self, results: Sequence[ToolResultMessage]) -> None:
        """Nothing to keep: the results are in the run log through their events."""

    def history(self) -> list[Message]:
        return []


class ActivityExecutor:
    """``ToolExecutor`` of the workflow: the worker's tools; each call an activity."""

    def __init__(self, spec: RunSpec, prepared: Prepared, facts: Mapping[str, CallFacts]) -> None:
        self._spec = spec
        self._tools = ToolSpec(prepared.tools)
        self._facts = facts

    async def list_tools(self) -> ToolSpec:
        return self._tools

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        facts = self._facts.get(call.native_id)
        if facts is None:  # not assessed by a worker: fail closed
            return RiskAssessment(level=RiskLevel.HIGH, reason="not assessed")
        return facts.risk

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolOutcome:
        facts = self._facts.get(call.native_id)
        high = clearance is not Clearance.UNREVIEWED or facts is None or facts.risk.level is not RiskLevel.LOW
        timeout = self._spec.params.tool_timeout_seconds
        request = ToolRequest(
            run_id=self._spec.run_id, workspace=self._spec.workspace, call=call, clearance=clearance, timeout=timeout
        )
        try:
            return await workflow.execute_activity(
                "quorum.tool",
                request,
                result_type=ToolOutcome,
                start_to_close_timeout=timedelta(seconds=timeout + 30),
                heartbeat_timeout=timedelta(seconds=self._spec.heartbeat_timeout),
                retry_policy=_ONCE if high else _LOW_RISK,
            )
        except ActivityError as error:
            if high:
                return ToolOutcome(output=UNKNOWN_OUTCOME.format(why=_cause(error)), is_error=True)
            return ToolOutcome(output=f"the call failed on every attempt: {_cause(error)}", is_error=True)


class ActivityPanel:
    """``ActionReviewer``: the worker's reviewer panel votes in an activity; the gate decides here."""

    def __init__(self, spec: RunSpec) -> None:
        self._spec = spec

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        request = PanelRequest(run_id=self._spec.run_id, workspace=self._spec.workspace, call=call, context=context)
        try:
            return await workflow.execute_activity(
                "quorum.panel",
                request,
                result_type=ReviewDecision,
                start_to_close_timeout=_MODEL,
                retry_policy=RetryPolicy(maximum_attempts=2),
            )
        except ActivityError as error:  # fail closed
            return ReviewDecision(
                approved=False, decided_by="quorum", reason=f"the review panel failed: {_cause(error)}"
            )


class FactsViewer:
    """``CallViewer``: what policy rules see of a call, resolved on the worker with the response."""

    def __init__(self, facts: Mapping[str, CallFacts]) -> None:
        self._facts = facts

    def view(self, call: ToolCall, tool: ToolDefinition | None) -> Mapping[str, ArgumentView]:
        facts = self._facts.get(call.native_id)
        return dict(facts.views or {}) if facts is not None else {}


class WaitingHumanStep:
    """``HumanStep``: decides at once (``auto_*``) or defers to a person, whose Signal the workflow awaits."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    async def decide(
        self, call: ToolCall, context: ReviewContext, *, why: str, votes: Sequence[Vote] = ()
    ) -> ReviewDecision:
        # Anything but auto_* waits for a person's Signal: deferred, as hil_mode = "defer" does.
        mode = self.mode if self.mode in ("auto_approve", "auto_reject") else "defer"
        decided = decision_without_asking(mode, why, votes)
        assert decided is not None  # every mode above decides without asking
        return decided


def _cause(error: BaseException) -> str:
    cause = error.cause if isinstance(error, ActivityError) else None
    while isinstance(cause, ActivityError) and cause.cause is not None:
        cause = cause.cause
    if isinstance(cause, ApplicationError):
        return cause.message
    return str(cause or error)


@workflow.defn(name=WORKFLOW_NAME)
class RunWorkflow:
    """One run (workflow id = run id): the loop to its end, waiting for people as often as it defers."""

    def __init__(self) -> None:
        self._inbox: list[CallDecision] = []
        self._model: str | None = None
        self._recorder: WorkflowRecorder | None = None
        self._prices = ReplyPrices()

    @workflow.signal(name=DECIDE_SIGNAL)
    def decide(self, decisions: Decisions) -> None:
        """People's decisions; buffered in the history, so they count even if no worker is running."""
        self._inbox.extend(decisions.decisions)
        if decisions.model_id:
            self._model = decisions.model_id

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> WorkflowStatus:
        recorder = self._recorder
        if recorder is None:
            return WorkflowStatus(recorded_seq=-1)
        return WorkflowStatus(
            recorded_seq=recorder.recorded_seq, waiting=tuple(recorder.waiting), finished=recorder.finished
        )

    @workflow.run
    async def run(self, spec: RunSpec) -> RunResult:
        prepared = await workflow.execute_activity(
            "quorum.prepare", spec, result_type=Prepared, start_to_close_timeout=_MODEL, retry_policy=_RETRY
        )
        recorder = self._recorder = WorkflowRecorder(spec)
        facts: dict[str, CallFacts] = {}
        self._prices = ReplyPrices()
        params = spec.params.model_copy(update={"stream": False})  # responses arrive whole from the activity
        request = RunRequest(
            task=spec.task,
            model_id=spec.model_id,
            system_prompt=prepared.system_prompt,
            params=params,
            run_id=spec.run_id,
        )
        result = await self._agent(spec, prepared, recorder, facts).execute(request)
        while result.stop_reason == RunStopReason.AWAITING_APPROVAL:
            await recorder.drain()
            waiting = list(recorder.waiting)
            try:
                await workflow.wait_condition(
                    lambda: bool(self._inbox), timeout=timedelta(seconds=spec.approval_timeout)
                )
            except TimeoutError:
                reason = NO_DECISION.format(hours=spec.approval_timeout / 3600)
                self._inbox.extend(CallDecision(call_id=c, approved=False, by="quorum", reason=reason) for c in waiting)
            claim_id = str(workflow.uuid4())  # a retried claim is recognised by it, never refused as taken
            decisions = tuple(d.model_copy(update={"decision_id": claim_id}) for d in self._inbox)
            self._inbox = []
            claimed = await workflow.execute_activity(
                "quorum.claim",
                ClaimRequest(run_id=spec.run_id, workspace=spec.workspace, decisions=decisions),
                result_type=Claimed,
                start_to_close_timeout=_QUICK,
                retry_policy=_RETRY,
            )
            if claimed.turn is None:
                workflow.logger.warning("decisions on run %s not applied: %s", spec.run_id, claimed.refused)
                continue
            facts.update(claimed.facts)
            agent = self._agent(spec, prepared, recorder, facts)
            if self._model:  # quorum approve --model: the rest of the run on another model
                request = request.model_copy(update={"model_id": self._model})
            result = await agent.execute(request.model_copy(update={"resume": claimed.turn}))
        await recorder.drain()
        recorder.finished = True
        return result

    def _agent(
        self, spec: RunSpec, prepared: Prepared, recorder: WorkflowRecorder, facts: dict[str, CallFacts]
    ) -> RunAgent:
        reviewer = ReviewGate(
            rules=prepared.rules,
            panel=ActivityPanel(spec) if prepared.panel else None,
            human=WaitingHumanStep(spec.hil_mode),
            escalate_on_reject=prepared.escalate_on_reject,
            viewer=FactsViewer(facts),
        )
        return RunAgent(
            gateway=ActivityGateway(spec, recorder, facts, self._prices),
            executor=ActivityExecutor(spec, prepared, facts),
            schema=_PreparedSchemas(prepared),
            reviewer=reviewer,
            observer=recorder,
            clock=workflow.time,
            new_run_id=lambda: spec.run_id,
            prices=self._prices,
        )


class _PreparedSchemas:
    """``ToolSchemaPort``: the schemas the worker derived for its tools."""

    def __init__(self, prepared: Prepared) -> None:
        self._schemas = prepared.schemas

    def tool_to_schema(self, tool: ToolDefinition) -> dict[str, Any]:
        return dict(self._schemas[tool.name])

    def all_tools_schema(self, spec: ToolSpec) -> list[dict[str, Any]]:
        return [self.tool_to_schema(tool) for tool in spec]

    def low_risk_tools_schema(self, spec: ToolSpec) -> list[dict[str, Any]]:
        return [self.tool_to_schema(tool) for tool in spec.low_risk_tools()]


__all__ = ["UNKNOWN_OUTCOME", "RunWorkflow"]
