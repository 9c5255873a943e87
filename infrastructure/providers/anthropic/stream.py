"""Accumulation of a Messages event stream into one response."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quorum.domain.responses import ContentBlock, LlmResponse, ReasoningBlock, TextBlock
from quorum.domain.streaming import StreamEvent, StreamReasoning, StreamTextDelta, StreamToolCallDelta
from quorum.domain.tools import ToolCall
from quorum.infrastructure.providers.anthropic import thinking
from quorum.infrastructure.providers.anthropic.shapes import (
    BlockDelta,
    BlockStart,
    JsonDelta,
    MessageDelta,
    MessageStart,
    OutputUsage,
    SignatureDelta,
    TextContent,
    TextDelta,
    ThinkingDelta,
    ToolUseContent,
)
from quorum.infrastructure.providers.anthropic.shapes import Usage as ShapeUsage
from quorum.infrastructure.providers.anthropic.wire import build_response, usage_of
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.http_body import (
    ErrorReply,
    MalformedResponse,
    SseEvent,
    parse_json,
    raise_error_object,
    validated,
)
from quorum.infrastructure.providers.wire_api import decode_arguments


@dataclass
class _Block:
    kind: str
    call_index: int = -1
    id: str = ""
    name: str = ""
    initial_input: dict[str, Any] = field(default_factory=dict)
    parts: list[str] = field(default_factory=list)
    signature: list[str] = field(default_factory=list)
    start: dict[str, Any] = field(default_factory=dict)
    """A thinking block's ``content_block_start`` block, as received."""

    def kept(self) -> ReasoningBlock:
        """A thinking block as one non-streamed reply holds it: its text and signature joined."""
        if self.kind == "redacted_thinking":
            return thinking.kept_block(self.start, "a redacted_thinking block")
        raw = {**self.start, "thinking": "".join(self.parts), "signature": "".join(self.signature)}
        return thinking.kept_block(raw, "a thinking block")


class MessageStreamAccumulator:
    """Collects content blocks by index; usage starts in ``message_start`` and ends in ``message_delta``.

    ``finish`` builds the response with the same function as the non-streaming path, so the two
    agree for the same reply. A thinking block's text and signature arrive as deltas and are joined
    as received; a stopped thinking block is announced (``StreamReasoning``). Tool-call deltas are
    numbered by call (0, 1, …), not by block.
    """

    def __init__(self, errors: ErrorTranslator) -> None:
        self._errors = errors
        self._blocks: dict[int, _Block] = {}
        self._calls = 0
        self._model: str | None = None
        self._input_usage: ShapeUsage | None = None
        self._output_tokens = 0
        self._stop: str | None = None
        self._stopped = False

    @property
    def done(self) -> bool:
        """``message_stop`` arrived."""
        return self._stopped

    def feed(self, sse: SseEvent) -> list[StreamEvent]:
        """The deltas carried by one event; event types Quorum does not use are skipped.

        Raises:
            MalformedResponse: the event is not JSON, or a known event has the wrong shape.
            ErrorReply: an ``error`` event.
        """
        value = parse_json(sse.data, "a stream event")
        if not isinstance(value, dict):
            if sse.event == "error":
                raise ErrorReply(sse.data[:200])
            raise MalformedResponse(f"a stream event is not a JSON object: {sse.data[:60]!r}")
        raise_error_object(value)
        kind = value.get("type")
        if sse.event == "error" or kind == "error":  # an error event without an error object
            raise ErrorReply(sse.data[:200])
        what = f"a {kind} event"
        if kind == "content_block_delta":
            return self._delta(validated(BlockDelta, value, what))
        if kind == "content_block_start":
            return self._start(validated(BlockStart, value, what))
        if kind == "message_start":
            message = validated(MessageStart, value, what).message
            self._model = message.model or None
            self._input_usage = message.usage
            self._output_tokens = (message.usage.output_tokens if message.usage else None) or 0
        elif kind == "message_delta":
            delta = validated(MessageDelta, value, what)
            self._stop = delta.delta.stop_reason or self._stop
            if delta.usage is not None:
                self._output_tokens = delta.usage.output_tokens or self._output_tokens
                self._input_usage = _cumulative(self._input_usage, delta.usage)
        elif kind == "message_stop":
            self._stopped = True
        elif kind == "content_block_stop":
            return self._block_stopped(value.get("index"))
        return []

    def _start(self, event: BlockStart) -> list[StreamEvent]:
        raw = event.content_block
        what = f"a content_block_start event: content_block[{event.index}]"
        if raw.get("type") in thinking.KINDS:
            start = dict(thinking.kept_block(raw, what).wire)  # checks the shape
            parts = [start.pop("thinking")] if raw["type"] == "thinking" else []
            signature = [start.pop("signature")] if raw["type"] == "thinking" else []
            self._blocks[event.index] = _Block(raw["type"], parts=parts, signature=signature, start=start)
            return []
        if raw.get("type") == "text":
            text = validated(TextContent, raw, what).text
            self._blocks[event.index] = _Block("text", parts=[text] if text else [])
            return [StreamTextDelta(text=text)] if text else []
        if raw.get("type") == "tool_use":
            block = validated(ToolUseContent, raw, what)
            index = self._calls
            self._calls += 1
            self._blocks[event.index] = _Block("tool_use", index, block.id, block.name, dict(block.input))
            return [StreamToolCallDelta(index=index, id=block.id, name=block.name)]
        return []

    def _delta(self, event: BlockDelta) -> list[StreamEvent]:
        block = self._blocks.get(event.index)
        kind = event.delta.get("type")
        if block is None:
            return []
        what = f"a content_block_delta event: delta[{event.index}]"
        if kind == "text_delta" and block.kind == "text":
            text = validated(TextDelta, event.delta, what).text
            block.parts.append(text)
            return [StreamTextDelta(text=text)]
        if kind == "input_json_delta" and block.kind == "tool_use":
            part = validated(JsonDelta, event.delta, what).partial_json
            block.parts.append(part)
            return [StreamToolCallDelta(index=block.call_index, arguments_delta=part)]
        if kind == "thinking_delta" and block.kind == "thinking":
            block.parts.append(validated(ThinkingDelta, event.delta, what).thinking)
        elif kind == "signature_delta" and block.kind == "thinking":
            block.signature.append(validated(SignatureDelta, event.delta, what).signature)
        return []

    def _block_stopped(self, index: Any) -> list[StreamEvent]:
        """A thinking block that stops is complete: announced, before the text after it streams."""
        block = self._blocks.get(index) if isinstance(index, int) else None
        if block is None or block.kind not in thinking.KINDS:
            return []
        return [StreamReasoning(block=block.kept())]

    def finish(self) -> LlmResponse:
        """The complete response.

        Raises:
            ProviderError: ``message_stop`` never came.
            MalformedResponse: two calls share an id.
        """
        if not self._stopped:
            raise self._errors.incomplete_stream("message_stop was not received")
        content: list[ContentBlock] = []
        for _, block in sorted(self._blocks.items()):
            if block.kind == "text":
                content.append(TextBlock(text="".join(block.parts)))
                continue
            if block.kind in thinking.KINDS:
                content.append(block.kept())
                continue
            text = "".join(block.parts)
            if text.strip():
                value, error, raw = decode_arguments(text)
            else:
                value, error, raw = block.initial_input, None, None
            content.append(
                ToolCall(native_id=block.id, name=block.name, arguments=value, arguments_error=error, raw_arguments=raw)
            )
        usage = usage_of(self._input_usage).model_copy(update={"output_tokens": self._output_tokens})
        return build_response(content, self._stop, self._model, usage)


def _cumulative(started: ShapeUsage | None, delta: OutputUsage) -> ShapeUsage | None:
    """``message_start``'s input counts, updated by those a ``message_delta`` carries (cumulative)."""
    given = {
        name: value
        for name in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens")
        if (value := getattr(delta, name)) is not None
    }
    if not given:
        return started
    return (started or ShapeUsage()).model_copy(update=given)
