"""Small working fakes of the application ports, for unit tests of the core."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from quorum.application.ports.llm import TurnInput, results_message
from quorum.application.ports.reviewer import ReviewContext
from quorum.domain.messages import Message
from quorum.domain.policy import PolicyRule, first_match
from quorum.domain.responses import LlmResponse, StopReason, TextBlock, Usage
from quorum.domain.review import ReviewDecision, Verdict, Vote
from quorum.domain.streaming import StreamCompleted, StreamEvent, StreamTextDelta, StreamToolCallDelta
from quorum.domain.tools import (
    Clearance,
    RiskAssessment,
    RiskLevel,
    ToolCall,
    ToolDefinition,
    ToolParameter,
    ToolResult,
    ToolSpec,
)


def text(t: str, *, usage: Usage | None = None, stop: StopReason | None = None) -> LlmResponse:
    return LlmResponse(content=(TextBlock(text=t),), stop_reason=stop or StopReason.end_turn(), usage=usage or Usage())


def calls(*specs: tuple[str, dict[str, Any]] | ToolCall, say: str = "", usage: Usage | None = None) -> LlmResponse:
    """A response asking for tool calls; ids are c1, c2, … unless a ToolCall is given."""
    blocks: list[Any] = [TextBlock(text=say)] if say else []
    for i, spec in enumerate(specs, 1):
        blocks.append(
            spec if isinstance(spec, ToolCall) else ToolCall(native_id=f"c{i}", name=spec[0], arguments=spec[1])
        )
    return LlmResponse(content=tuple(blocks), stop_reason=StopReason.tool_use(), usage=usage or Usage())


class ScriptExhausted(AssertionError):
    pass


@dataclass
class ScriptedSession:
    """Replays responses in order and records what it was sent, like a real session's history."""

    script: list[LlmResponse | Callable[[], Awaitable[LlmResponse]]]
    model: str = "scripted"
    sent: list[tuple[str, Any]] = field(default_factory=list)
    messages: list[Message] = field(default_factory=list)
    turns: list[TurnInput] = field(default_factory=list)

    async def _next(self) -> LlmResponse:
        if not self.script:
            raise ScriptExhausted("the scripted session ran out of responses")
        item = self.script.pop(0)
        response = item if isinstance(item, LlmResponse) else await item()
        self.messages.append(Message(role="assistant", content=response.content))
        return response

    async def request(self, turn: TurnInput) -> LlmResponse:
        """Record what was sent, as ``(kind, details)``: ``send``, ``send_with_tools`` or ``send_tool_results``."""
        self.turns.append(turn)
        if turn.results or turn.note:
            self.sent.append(("send_tool_results", (list(turn.results), turn.tools, turn.note)))
        elif turn.tools is None:
            self.sent.append(("send", turn.text))
        else:
            self.sent.append(("send_with_tools", (turn.text, list(turn.tools))))
        self.messages.append(turn.message())
        return await self._next()

    def record(self, results: Sequence[ToolResult]) -> None:
        if (message := results_message(results)) is not None:
            self.messages.append(message)

    async def _stream(self, response: Awaitable[LlmResponse]) -> AsyncIterator[StreamEvent]:
        done = await response
        for block_index, block in enumerate(done.content):
            if isinstance(block, TextBlock):
                for i in range(0, len(block.text), 3):
                    yield StreamTextDelta(text=block.text[i : i + 3])
            elif isinstance(block, ToolCall):
                yield StreamToolCallDelta(index=block_index, id=block.native_id, name=block.name)
        yield StreamCompleted(response=done)

    def request_stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        return self._stream(self.request(turn))

    def history(self) -> list[Message]:
        return list(self.messages)


@dataclass
class FakeGateway:
    session_obj: ScriptedSession
    opened: list[tuple[str, str | None]] = field(default_factory=list)

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> Any:
        self.opened.append((model_id, system_prompt))
        if history:  # a session reopened on its own history (plan mode, compaction) continues it
            self.session_obj.messages[:] = list(history)
        return self.session_obj


ToolFn = Callable[[dict[str, Any]], Awaitable[str | ToolResult]]


@dataclass
class FakeTools:
    """A tool executor over async functions; records executions and the peak concurrency."""

    tools: dict[str, tuple[ToolDefinition, ToolFn]] = field(default_factory=dict)
    executed: list[str] = field(default_factory=list)
    running: int = 0
    peak: int = 0
    risk_overrides: dict[str, RiskLevel] = field(default_factory=dict)
    clearances: dict[str, Clearance] = field(default_factory=dict)
    """The clearance each call (by id) was executed with."""

    def add(
        self, name: str, fn: ToolFn, *, risk: RiskLevel = RiskLevel.LOW, params: Sequence[ToolParameter] = ()
    ) -> None:
        self.tools[name] = (
            ToolDefinition(name=name, description=f"{name} tool", risk=risk, parameters=tuple(params)),
            fn,
        )

    async def list_tools(self) -> ToolSpec:
        return ToolSpec(d for d, _ in self.tools.values())

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        level = self.risk_overrides.get(call.native_id, tool.risk)
        return RiskAssessment(level=level, reason=f"{tool.name} is {level.value}-risk")

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        self.clearances[call.native_id] = clearance
        self.running += 1
        self.peak = max(self.peak, self.running)
        self.executed.append(call.native_id)
        try:
            out = await self.tools[call.name][1](dict(call.arguments))
        finally:
            self.running -= 1
        return out if isinstance(out, ToolResult) else ToolResult(output=out)


class JsonSchema:
    """Minimal ToolSchemaPort for unit tests: parameters → JSON Schema."""

    def tool_to_schema(self, tool: ToolDefinition) -> dict[str, Any]:
        if tool.input_schema is not None:
            schema = tool.input_schema
        else:
            types = {"path": "string"}
            schema = {
                "type": "object",
                "properties": {p.name: {"type": types.get(p.param_type, p.param_type)} for p in tool.parameters},
                "required": [p.name for p in tool.parameters if p.required],
            }
        return {"name": tool.name, "description": tool.description, "input_schema": schema, "risk": tool.risk.value}

    def all_tools_schema(self, spec: ToolSpec) -> list[dict[str, Any]]:
        return [self.tool_to_schema(t) for t in spec.all()]

    def low_risk_tools_schema(self, spec: ToolSpec) -> list[dict[str, Any]]:
        return [self.tool_to_schema(t) for t in spec.low_risk_tools()]


@dataclass
class ScriptedReviewer:
    """Approves or rejects by call id (default: approve); records what it reviewed and when."""

    verdicts: dict[str, bool] = field(default_factory=dict)
    default: bool = True
    reviewed: list[str] = field(default_factory=list)
    contexts: list[ReviewContext] = field(default_factory=list)
    tools: FakeTools | None = None
    running_at_review: list[int] = field(default_factory=list)
    rules: list[PolicyRule] = field(default_factory=list)
    """Policy rules screening every call (``screen``); ``review`` itself ignores them."""
    vote_model: str | None = None
    vote_usage: Usage = field(default_factory=Usage)
    """The reviewer model and tokens each vote reports (a reviewer model's spending)."""

    plan_verdicts: list[tuple[bool, str]] = field(default_factory=list)
    """Decisions on proposed plans, in order (then approve)."""
    plan_contexts: list[ReviewContext] = field(default_factory=list)

    def screen(self, call: ToolCall, tool: ToolDefinition | None) -> PolicyRule | None:
        return first_match(self.rules, call.name, call.arguments) if self.rules else None

    async def review_plan(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        self.plan_contexts.append(context)
        ok, reason = self.plan_verdicts.pop(0) if self.plan_verdicts else (True, "a sound plan")
        vote = Vote(reviewer="fake", verdict=Verdict.APPROVE if ok else Verdict.REJECT, reason=reason)
        return ReviewDecision(approved=ok, decided_by="quorum", votes=(vote,), rule="majority", reason=reason)

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        self.reviewed.append(call.native_id)
        self.contexts.append(context)
        if self.tools is not None:
            self.running_at_review.append(self.tools.running)
        ok = self.verdicts.get(call.native_id, self.default)
        vote = Vote(
            reviewer="fake",
            verdict=Verdict.APPROVE if ok else Verdict.REJECT,
            reason="looks " + ("fine" if ok else "dangerous"),
            model=self.vote_model,
            usage=self.vote_usage,
        )
        return ReviewDecision(approved=ok, decided_by="quorum", votes=(vote,), rule="majority", reason=vote.reason)


@dataclass
class RecordingObserver:
    events: list[Any] = field(default_factory=list)

    def on_event(self, event: Any) -> None:
        self.events.append(event)

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    def of(self, kind: str) -> list[Any]:
        return [e for e in self.events if e.type == kind]


async def wait_forever(_: dict[str, Any]) -> str:
    await asyncio.Event().wait()
    return "never"
