"""Accumulation of a Responses API event stream into one response.

The events Quorum reads: ``response.output_item.added`` (a function call starts: its ``call_id``
and name), ``response.output_text.delta`` and ``response.function_call_arguments.delta`` (the
deltas shown as they come), ``response.output_item.done`` (an item complete), and the final
``response.completed`` / ``response.incomplete`` / ``response.failed`` carrying the whole
response, or an ``error`` event. Other events (``response.created``, content part and reasoning
summary events) carry nothing Quorum needs and are passed over.
"""

from __future__ import annotations

from typing import Any

from quorum.domain.responses import LlmResponse
from quorum.domain.streaming import StreamEvent, StreamReasoning, StreamTextDelta, StreamToolCallDelta
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.http_body import ErrorReply, MalformedResponse, SseEvent, parse_json, validated
from quorum.infrastructure.providers.openai import responses_shapes as shapes
from quorum.infrastructure.providers.openai.responses_reasoning import kept_item
from quorum.infrastructure.providers.openai.responses_wire import build_response

FINAL = frozenset({"response.completed", "response.incomplete", "response.failed"})


class ResponsesStreamAccumulator:
    """Turns the events of one streamed response into deltas, then the response.

    ``finish`` builds the response from the final event's ``response`` with the function of the
    plain path (``build_response``), so both agree for the same reply; the items of
    ``response.output_item.done`` stand in when that object lists no output.
    """

    def __init__(self, errors: ErrorTranslator) -> None:
        self._errors = errors
        self._items: dict[int, dict[str, Any]] = {}
        self._calls: dict[int, str] = {}
        self._final: shapes.Response | None = None
        self.done = False

    def feed(self, sse: SseEvent) -> list[StreamEvent]:
        """The deltas in one event.

        Raises:
            MalformedResponse: the event is not JSON, or not the shape its type says.
            ErrorReply: an ``error`` event.
        """
        event = parse_json(sse.data, "a stream event")
        if not isinstance(event, dict):
            raise MalformedResponse("a stream event is not a JSON object")
        kind = event.get("type") or sse.event
        if kind == "error":
            raise ErrorReply(str(event.get("message") or "the stream reported an error") + _code(event))
        if kind in FINAL:
            self._final = validated(shapes.Response, event.get("response"), "the final response")
            self.done = True
            return []
        return self._delta(kind, event)

    def _delta(self, kind: Any, event: dict[str, Any]) -> list[StreamEvent]:
        index = _index(event)
        if kind == "response.output_text.delta":
            return [StreamTextDelta(text=_text(event, "delta"))] if event.get("delta") else []
        if kind == "response.output_item.added" and _item(event).get("type") == "function_call":
            call = _item(event)
            self._calls[index] = str(call.get("call_id") or "")
            name = str(call.get("name") or "")
            return [
                StreamToolCallDelta(index=index, id=self._calls[index] or None, name=name or None, arguments_delta="")
            ]
        if kind == "response.function_call_arguments.delta":
            return [StreamToolCallDelta(index=index, id=None, name=None, arguments_delta=_text(event, "delta"))]
        if kind == "response.output_item.done":
            item = self._items[index] = _item(event)
            if item.get("type") == "reasoning":
                return [StreamReasoning(block=kept_item(item))]
        return []

    def finish(self) -> LlmResponse:
        """The complete response.

        Raises:
            ProviderError: no final event arrived.
            ErrorReply: the response failed. MalformedResponse: an item is malformed, or two calls share an id.
        """
        if self._final is None:
            raise self._errors.incomplete_stream("no response.completed event was received")
        return build_response(self._final, [item for _, item in sorted(self._items.items())])


def _index(event: dict[str, Any]) -> int:
    index = event.get("output_index", 0)
    if not isinstance(index, int) or isinstance(index, bool):
        raise MalformedResponse(f"a stream event's output_index is not an integer: {index!r}"[:120])
    return index


def _item(event: dict[str, Any]) -> dict[str, Any]:
    item = event.get("item")
    if not isinstance(item, dict):
        raise MalformedResponse(f"a {event.get('type')} event has no item object")
    return item


def _text(event: dict[str, Any], key: str) -> str:
    value = event.get(key)
    if not isinstance(value, str):
        raise MalformedResponse(f"a {event.get('type')} event's {key} is not text")
    return value


def _code(event: dict[str, Any]) -> str:
    code = event.get("code")
    return f" ({code})" if isinstance(code, str) and code else ""
