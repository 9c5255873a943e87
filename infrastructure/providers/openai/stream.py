"""Accumulation of a Chat Completions event stream (``chat.completion.chunk``s) into one response."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quorum.domain.responses import LlmResponse
from quorum.domain.streaming import StreamEvent, StreamTextDelta, StreamToolCallDelta
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.http_body import SseEvent, parse_json, raise_error_object, validated
from quorum.infrastructure.providers.openai.shapes import Chunk, ToolCallDelta
from quorum.infrastructure.providers.openai.wire import build_response, tool_call


@dataclass
class _PartialCall:
    id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


class ChatStreamAccumulator:
    """Collects text and tool-call fragments of the first choice; usage comes in the last chunk.

    ``finish`` builds the response with the same function as the non-streaming path, so the two
    agree for the same reply.
    """

    def __init__(self, errors: ErrorTranslator) -> None:
        self._errors = errors
        self._text: list[str] = []
        self._calls: dict[int, _PartialCall] = {}
        self._finish_reason: str | None = None
        self._model: str | None = None
        self._usage: Any = None
        self.done = False

    def feed(self, sse: SseEvent) -> list[StreamEvent]:
        """The deltas in one event: a chunk, ``[DONE]``, or an error object (raised as ErrorReply).

        Raises:
            MalformedResponse: the event is not JSON or not a chunk.
            ErrorReply: the server sent an error instead.
        """
        if sse.data.strip() == "[DONE]":
            self.done = True
            return []
        value = parse_json(sse.data, "a stream event")
        raise_error_object(value)
        chunk = validated(Chunk, value, "a stream chunk")
        if chunk.model:
            self._model = chunk.model
        if chunk.usage is not None:
            self._usage = chunk.usage
        events: list[StreamEvent] = []
        for choice in chunk.choices:
            if choice.index not in (0, None):
                continue
            delta = choice.delta
            if delta is not None:
                if delta.content:
                    self._text.append(delta.content)
                    events.append(StreamTextDelta(text=delta.content))
                for fragment in delta.tool_calls or ():
                    events.append(self._call_fragment(fragment))
            if choice.finish_reason:
                self._finish_reason = choice.finish_reason
        return events

    def _call_fragment(self, fragment: ToolCallDelta) -> StreamToolCallDelta:
        index = fragment.index
        if index is None:  # servers that omit it send each call whole, a new id starting each
            index = len(self._calls) if fragment.id or not self._calls else len(self._calls) - 1
        call = self._calls.setdefault(index, _PartialCall())
        function = fragment.function
        name = function.name if function is not None else None
        arguments = (function.arguments or "") if function is not None else ""
        if fragment.id:
            call.id = fragment.id
        if name:
            call.name += name
        if arguments:
            call.arguments.append(arguments)
        return StreamToolCallDelta(index=index, id=fragment.id or None, name=name or None, arguments_delta=arguments)

    def finish(self) -> LlmResponse:
        """The complete response.

        Raises:
            ProviderError: no finish_reason arrived.
            MalformedResponse: two calls share an id.
        """
        if self._finish_reason is None:
            raise self._errors.incomplete_stream("no finish_reason was received")
        calls = [tool_call(call.id, call.name, "".join(call.arguments)) for _, call in sorted(self._calls.items())]
        return build_response("".join(self._text), calls, self._finish_reason, self._model, self._usage)
