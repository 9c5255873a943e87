"""The activities of the run workflow: everything that touches the world, on a worker.

Each activity gets what it needs by run id and workspace: ``RunParts`` (the worker's composed
gateway, tools, review panel, run store) are built once per workspace by the ``quorum worker``
command and reused. Activities are idempotent where Temporal may repeat them: the model request
reads the conversation from the run log (the same log gives the same request), log writes skip
events already recorded, and a high-risk tool call is never repeated (the workflow allows it one
attempt).
"""

from __future__ import annotations

import asyncio
import dataclasses
import re
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

from temporalio import activity
from temporalio.exceptions import ApplicationError

from quorum.application import model_wording as say
from quorum.application.ports.approvals import PendingApprovals, PendingCall
from quorum.application.ports.llm import LlmGateway, ToolSchemas, TurnInput
from quorum.application.ports.pricing import PriceList
from quorum.application.ports.reviewer import ActionReviewer, CallViewer
from quorum.application.ports.run_store import RecordedEvent, RunHeader, RunStore
from quorum.application.ports.tool_executor import ToolExecutor
from quorum.application.ports.tool_schema import ToolSchemaPort
from quorum.application.redaction import RedactingObserver
from quorum.application.run_context import current_run_id
from quorum.application.use_cases.continue_run import open_turn
from quorum.domain.errors import ProviderError, QuorumError, UsageError
from quorum.domain.events import ApprovalRequested, RunEvent, RunStarted, ToolResultEvent
from quorum.domain.messages import Message
from quorum.domain.policy import PolicyRule
from quorum.domain.responses import TextBlock
from quorum.domain.review import ReviewDecision
from quorum.domain.secrets import Redactor
from quorum.domain.tools import RiskAssessment, RiskLevel, ToolCall, ToolResult, ToolSpec
from quorum.infrastructure.engines.temporal.messages import (
    CallFacts,
    Claimed,
    ClaimRequest,
    ModelReply,
    ModelRequest,
    PanelRequest,
    Prepared,
    RecordBatch,
    RunSpec,
    ToolRequest,
)

HEARTBEAT_SECONDS = 3.0
"""The longest pause between heartbeats of a running tool call (shorter for a short heartbeat timeout)."""

INLINE_OUTPUT_CHARS = 2048
"""Tool outputs up to this size travel in workflow history; larger ones are kept in the run log's
payloads and history carries a reference (``payload_reference``), so it stays small."""

_REFERENCE = re.compile(r"\[quorum payload (\S+): \d+ characters kept in the run log\]")


def payload_reference(key: str, size: int) -> str:
    """The text standing for a tool output kept in the run log under ``key`` (what history holds)."""
    return f"[quorum payload {key}: {size} characters kept in the run log]"


class PayloadStore(Protocol):
    """Where large tool outputs wait for the record activity (both run stores implement it)."""

    def put_payload(self, run_id: str, key: str, data: str) -> None:
        """Keep ``data``; a repeated put of the same key keeps the first."""
        ...

    def get_payload(self, run_id: str, key: str) -> str | None:
        """The data under ``key``, None when there is none."""
        ...


@dataclass
class RunParts:
    """What a worker composed for one workspace (its own configuration, the workspace overridden).

    Attributes:
        gateway: opens model sessions.
        executor: the tools.
        schema: tool definitions → neutral schemas.
        rules: ``[[review.rules]]``.
        panel: the reviewer panel, None without ``[review] reviewers``.
        escalate_on_reject: ``[review] escalate_on_reject``.
        viewer: what policy rules see of a call.
        store: the run log (shared by every worker and client); it also keeps large tool outputs
            (``PayloadStore``).
        approvals: the run log's pending approvals.
        redactor: the worker's known secrets.
        prices: token prices (a response's cost travels with it; the workflow cannot look prices up).
        system_notes: adds the tool sources' notes to a system prompt.
        close: releases the tools and clients.
        workspace: the directory the tools act in.
    """

    gateway: LlmGateway
    executor: ToolExecutor
    schema: ToolSchemaPort
    rules: tuple[PolicyRule, ...]
    panel: ActionReviewer | None
    escalate_on_reject: bool
    viewer: CallViewer
    store: RunStore
    payloads: PayloadStore
    approvals: PendingApprovals
    redactor: Redactor
    prices: PriceList | None
    system_notes: Callable[[str | None], Awaitable[str | None]]
    close: Callable[[], Awaitable[None]]
    workspace: str


def _fail(error: BaseException) -> ApplicationError:
    """An error the workflow sees with its message; Quorum's own errors are not retried."""
    name = type(error).__name__
    # a model that could not answer says why, so the workflow's fallback models can answer instead
    why = error.unavailable if isinstance(error, ProviderError) else None
    details = (why,) if why is not None else ()
    return ApplicationError(f"{name}: {error}", *details, type=name, non_retryable=isinstance(error, QuorumError))


class QuorumActivities:
    """The activities, bound to a factory of ``RunParts`` per workspace."""

    def __init__(self, compose: Callable[[str], RunParts]) -> None:
        self._compose = compose
        self._parts: dict[str, RunParts] = {}
        self._tools: dict[str, ToolSpec] = {}

    def _for(self, workspace: str) -> RunParts:
        parts = self._parts.get(workspace)
        if parts is None:
            parts = self._parts[workspace] = self._compose(workspace)
        return parts

    async def _spec(self, parts: RunParts) -> ToolSpec:
        tools = self._tools.get(parts.workspace)
        if tools is None:
            tools = self._tools[parts.workspace] = await parts.executor.list_tools()
        return tools

    async def _facts(self, parts: RunParts, calls: list[ToolCall]) -> dict[str, CallFacts]:
        tools = await self._spec(parts)
        facts: dict[str, CallFacts] = {}
        for call in calls:
            tool = tools.get(call.name)
            if tool is None:
                continue  # the loop answers unknown tools itself
            try:
                risk = parts.executor.assess_risk(call, tool)
            except Exception as error:  # fail closed
                risk = RiskAssessment(level=RiskLevel.HIGH, reason=f"risk not assessed: {error}")
            views = dict(parts.viewer.view(call, tool)) if parts.rules else None
            facts[call.native_id] = CallFacts(risk=risk, views=views)
        return facts

    @activity.defn(name="quorum.prepare")
    async def prepare(self, spec: RunSpec) -> Prepared:
        """The worker's tools, schemas and review setup, and the system prompt with the tools' notes."""
        try:
            parts = self._for(spec.workspace)
            tools = await self._spec(parts)
            if spec.params.tools == "low_risk_only":
                tools = ToolSpec(tools.low_risk_tools())
            return Prepared(
                tools=tuple(tools),
                schemas={tool.name: parts.schema.tool_to_schema(tool) for tool in tools},
                rules=parts.rules,
                panel=parts.panel is not None,
                escalate_on_reject=parts.escalate_on_reject,
                system_prompt=await parts.system_notes(spec.system_prompt),
            )
        except QuorumError as error:
            raise _fail(error) from None

    @activity.defn(name="quorum.model")
    async def model(self, request: ModelRequest) -> ModelReply:
        """One model request: the conversation from the run log, the new response back.

        The events the request carries (``record``) are appended first, as ``record`` would.
        """
        try:
            parts = self._for(request.workspace)
            if request.record is not None:
                await self.record(request.record)
            # only the tail: is the event the request follows there? (the whole log is read below)
            if not parts.store.load_events(request.run_id, after=request.after_seq - 1):
                raise ApplicationError(f"the run log of run {request.run_id} is behind the workflow")
            history = parts.store.load_history(request.run_id)
            tools = await self._spec(parts)
            schemas = None
            if request.tool_names is not None:
                schemas = [parts.schema.tool_to_schema(t) for t in tools if t.name in request.tool_names]
            session = parts.gateway.session(request.model_id, request.system_prompt, history=history[:-1])
            turn = dataclasses.replace(_sent_by(history[-1], schemas, request.note), reasoning=request.reasoning)
            response = await session.request(turn)
            cost = parts.prices.cost(request.model_id, response.usage) if parts.prices is not None else None
            return ModelReply(response=response, facts=await self._facts(parts, response.tool_calls()), cost=cost)
        except QuorumError as error:
            raise _fail(error) from None

    @activity.defn(name="quorum.tool")
    async def tool(self, request: ToolRequest) -> ToolResult:
        """Execute one call (heartbeating, so a lost worker is noticed); the output is redacted here."""
        parts = self._for(request.workspace)
        await self._spec(parts)
        info = activity.info()
        every = HEARTBEAT_SECONDS
        if info.heartbeat_timeout is not None:
            every = min(every, info.heartbeat_timeout.total_seconds() / 4)
        beating = asyncio.get_running_loop().create_task(_heartbeat(every))
        running = current_run_id.set(request.run_id)  # checkpoints are recorded under the run (decision 240)
        try:
            async with asyncio.timeout(request.timeout):
                outcome = await parts.executor.execute(request.call, clearance=request.clearance)
        except TimeoutError:
            outcome = ToolResult(output=say.tool_timed_out(request.call.name, request.timeout), is_error=True)
        except QuorumError as error:
            outcome = ToolResult(output=f"{type(error).__name__}: {error}", is_error=True)
        finally:
            current_run_id.reset(running)
            beating.cancel()
        output, _ = parts.redactor.redact(outcome.output)
        if len(output) > INLINE_OUTPUT_CHARS:  # kept out of workflow history: the record activity resolves it
            key = f"tool.{info.activity_id}.{info.attempt}"
            parts.payloads.put_payload(request.run_id, key, output)
            output = payload_reference(key, len(output))
        return outcome.model_copy(update={"output": output})

    @activity.defn(name="quorum.panel")
    async def panel(self, request: PanelRequest) -> ReviewDecision:
        """The worker's reviewer panel votes on one call."""
        parts = self._for(request.workspace)
        if parts.panel is None:
            return ReviewDecision(approved=False, decided_by="quorum", reason="this worker has no reviewer panel")
        return await parts.panel.review(request.call, request.context)

    @activity.defn(name="quorum.record")
    async def record(self, batch: RecordBatch) -> int:
        """Append events to the run log (redacted); events already recorded (a repeated batch) are skipped."""
        parts = self._for(batch.workspace)
        store = parts.store
        try:
            first_seq = batch.events[0].seq
            # the batch's own events already stored (a repeated batch), not the whole log
            recorded = store.load_events(batch.run_id, after=first_seq - 1)
            if not recorded and batch.header_task is not None and store.get_run(batch.run_id) is None:
                first = batch.events[0].event
                header = RunHeader(
                    run_id=batch.run_id,
                    task=first.task if isinstance(first, RunStarted) else batch.header_task,
                    model=batch.header_model or "",
                    workspace=batch.workspace,
                    parent_run_id=batch.parent_run_id,
                    started_at=batch.events[0].at,
                    engine="temporal",
                )
                store.start_run(header)
            last = recorded[-1].seq if recorded else first_seq - 1
            fresh = [e for e in batch.events if e.seq > last]
            if fresh:
                fresh = [_resolved(e, batch.run_id, parts.payloads) for e in fresh]
                store.append_events(batch.run_id, [_redacted(e, parts.redactor) for e in fresh])
            return batch.events[-1].seq
        except QuorumError as error:
            raise _fail(error) from None

    @activity.defn(name="quorum.claim")
    async def claim(self, request: ClaimRequest) -> Claimed:
        """Claim people's decisions in the run log (once, atomically) and rebuild the open turn."""
        parts = self._for(request.workspace)
        store, approvals = parts.store, parts.approvals
        run = store.get_run(request.run_id)
        if run is None:
            return Claimed(refused=f"there is no run {request.run_id!r} in the run log")
        # The calls requested and not answered, read from the events rather than approvals.pending():
        # a retried claim whose first attempt committed finds them no longer pending there.
        pending = _unanswered(run.run_id, run.task, store.load_events(run.run_id))
        unknown = [d.call_id for d in request.decisions if d.call_id not in pending]
        if unknown:
            return Claimed(refused=f"not pending: {', '.join(unknown)}")
        decisions = list({d.call_id: d for d in request.decisions}.values())
        try:
            turn = open_turn(run, store.load_history(run.run_id), pending, decisions)
            approvals.claim(run.run_id, decisions)  # idempotent per decision id: a retry succeeds
        except UsageError as error:
            return Claimed(refused=str(error))
        return Claimed(turn=turn, facts=await self._facts(parts, list(turn.calls)))

    def all(self) -> list[Callable[..., Any]]:
        """Every activity, for ``Worker(activities=...)``."""
        return [self.prepare, self.model, self.tool, self.panel, self.record, self.claim]

    async def aclose(self) -> None:
        """Close what the composed parts opened (MCP servers, HTTP clients)."""
        for parts in self._parts.values():
            await parts.close()
        self._parts.clear()


def _sent_by(last: Message, tools: ToolSchemas | None, note: str | None) -> TurnInput:
    """What the run log's last message sends, as one turn; the workflow's ``note`` follows its results."""
    results = tuple(b for b in last.content if isinstance(b, ToolResult))
    text = "\n\n".join(b.text for b in last.content if isinstance(b, TextBlock))
    if results:
        return TurnInput.answering(results, tools, note="\n\n".join(p for p in (text, note or "") if p) or None)
    return TurnInput.user(text, tools)


def _unanswered(run_id: str, task: str, events: list[RecordedEvent]) -> dict[str, PendingCall]:
    """The calls of the run with an ``approval_requested`` (its first) and no ``tool_result``, by call id."""
    requested: dict[str, PendingCall] = {}
    for recorded in events:
        event = recorded.event
        if isinstance(event, ApprovalRequested) and event.call_id not in requested:
            requested[event.call_id] = PendingCall(run_id=run_id, task=task, requested_at=recorded.at, request=event)
        elif isinstance(event, ToolResultEvent):
            requested.pop(event.call_id, None)
    return requested


async def _heartbeat(every: float) -> None:
    while True:
        activity.heartbeat()
        await asyncio.sleep(every)


def _resolved(recorded: RecordedEvent, run_id: str, payloads: PayloadStore) -> RecordedEvent:
    """``recorded`` with a tool output that history only references replaced by the output."""
    event = recorded.event
    if not isinstance(event, ToolResultEvent) or not (found := _REFERENCE.fullmatch(event.output)):
        return recorded
    data = payloads.get_payload(run_id, found.group(1))
    if data is None:
        return recorded
    return recorded.model_copy(update={"event": event.model_copy(update={"output": data})})


def _redacted(recorded: RecordedEvent, redactor: Redactor) -> RecordedEvent:
    clean: list[RunEvent] = []
    RedactingObserver(_Collect(clean), redactor).on_event(recorded.event)
    return recorded.model_copy(update={"event": clean[0]})


class _Collect:
    def __init__(self, into: list[RunEvent]) -> None:
        self._into = into

    def on_event(self, event: RunEvent) -> None:
        self._into.append(event)


__all__ = ["QuorumActivities", "RunParts"]
