"""Accumulation of a raw Messages stream (``RawMessageStreamEvent``s) into one response."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quorum.domain.responses import ContentBlock, LlmResponse, TextBlock, ToolUseBlock, Usage
from quorum.domain.streaming import StreamEvent, StreamTextDelta, StreamToolCallDelta
from quorum.infrastructure.providers.anthropic.wire import build_response, usage_of
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.session_base import decode_arguments


@dataclass
class _Block:
    kind: str
    call_index: int = -1
    id: str = ""
    name: str = ""
    initial_input: dict[str, Any] = field(default_factory=dict)
    parts: list[str] = field(default_factory=list)


class MessageStreamAccumulator:
    """Collects content blocks by index; usage starts in ``message_start`` and ends in ``message_delta``.

    ``finish`` builds the response with the same function as the non-streaming path, so the two
    agree for the same reply. Tool-call deltas are numbered by call (0, 1, …), not by block.
    """

    def __init__(self, errors: ErrorTranslator) -> None:
        self._errors = errors
        self._blocks: dict[int, _Block] = {}
        self._calls = 0
        self._model: str | None = None
        self._input_usage: Any = None
        self._output_tokens = 0
        self._stop: str | None = None
        self._stopped = False

    def feed(self, event: Any) -> list[StreamEvent]:
        """The deltas carried by one event."""
        kind = event.type
        if kind == "content_block_delta":
            return self._delta(event)
        if kind == "content_block_start":
            return self._start(event)
        if kind == "message_start":
            self._model = event.message.model or None
            self._input_usage = event.message.usage
            self._output_tokens = event.message.usage.output_tokens or 0
        elif kind == "message_delta":
            self._stop = event.delta.stop_reason or self._stop
            if event.usage is not None:
                self._output_tokens = event.usage.output_tokens or self._output_tokens
        elif kind == "message_stop":
            self._stopped = True
        return []

    def _start(self, event: Any) -> list[StreamEvent]:
        block = event.content_block
        if block.type == "text":
            self._blocks[event.index] = _Block("text", parts=[block.text] if block.text else [])
            return [StreamTextDelta(text=block.text)] if block.text else []
        if block.type == "tool_use":
            index = self._calls
            self._calls += 1
            initial = block.input if isinstance(block.input, dict) else {}
            self._blocks[event.index] = _Block("tool_use", index, block.id, block.name, initial)
            return [StreamToolCallDelta(index=index, id=block.id, name=block.name)]
        return []

    def _delta(self, event: Any) -> list[StreamEvent]:
        block = self._blocks.get(event.index)
        delta = event.delta
        if block is None:
            return []
        if delta.type == "text_delta" and block.kind == "text":
            block.parts.append(delta.text)
            return [StreamTextDelta(text=delta.text)]
        if delta.type == "input_json_delta" and block.kind == "tool_use":
            block.parts.append(delta.partial_json)
            return [StreamToolCallDelta(index=block.call_index, arguments_delta=delta.partial_json)]
        return []

    def finish(self) -> LlmResponse:
        """The complete response. Raises ProviderError when ``message_stop`` never came."""
        if not self._stopped:
            raise self._errors.incomplete_stream("message_stop was not received")
        content: list[ContentBlock] = []
        for _, block in sorted(self._blocks.items()):
            if block.kind == "text":
                content.append(TextBlock(text="".join(block.parts)))
                continue
            text = "".join(block.parts)
            if text.strip():
                value, error, raw = decode_arguments(text)
            else:
                value, error, raw = block.initial_input, None, None
            content.append(ToolUseBlock(id=block.id, name=block.name, input=value, input_error=error, raw_input=raw))
        usage = usage_of(self._input_usage)
        usage = Usage(input_tokens=usage.input_tokens, output_tokens=self._output_tokens)
        return build_response(content, self._stop, self._model, usage)
