"""What every chat-style provider session shares: history, the port's members, error edges.

A concrete session supplies the wire: how one neutral ``Message`` becomes wire messages, how a
request is made, how a response or a stream becomes an ``LlmResponse``. The neutral history is the
truth; the wire list is kept beside it, append-only, so a turn costs the new messages only.

Everything a provider can send is translated here: SDK exceptions, and the reading of the body
(``http_body``): a malformed reply, an error object, a stalled stream all become ``ProviderError``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from abc import ABC, abstractmethod
from collections.abc import AsyncIterator, Sequence
from contextlib import AbstractAsyncContextManager
from types import ModuleType
from typing import Any, Protocol

from quorum.application.ports.llm import ToolSchemas, TurnInput, results_message
from quorum.domain.errors import ProviderError
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse
from quorum.domain.streaming import StreamCompleted, StreamEvent
from quorum.domain.tools import ToolCall, ToolResult
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.http_body import (
    ErrorReply,
    MalformedResponse,
    ResponseStalled,
    SseEvent,
    read_json,
    sse_events,
)

Wire = dict[str, Any]


class StreamAccumulator(Protocol):
    """Turns the raw events of one streamed response into deltas, then into the final response."""

    @property
    def done(self) -> bool:
        """The final event arrived; the stream is not read further."""
        ...

    def feed(self, event: SseEvent) -> list[StreamEvent]:
        """Deltas carried by one event (often none). Raises MalformedResponse or ErrorReply."""
        ...

    def finish(self) -> LlmResponse:
        """The complete response. Raises ProviderError when the stream ended early."""
        ...


class ProviderSession(ABC):
    """Base of the provider sessions: implements ``LlmSession`` over a few wire hooks.

    Args:
        model: the model name as the provider knows it.
        system_prompt: sent with every request, not part of ``history()``.
        history: a neutral conversation to continue (possibly from another provider).
        errors: translates SDK exceptions into ``ProviderError``.
        sdk: the SDK module whose exception classes ``errors`` matches against.
    """

    def __init__(
        self,
        *,
        model: str,
        system_prompt: str | None,
        history: Sequence[Message],
        errors: ErrorTranslator,
        sdk: ModuleType,
    ) -> None:
        self._model = model
        self._system_prompt = system_prompt
        self._errors = errors
        self._sdk = sdk
        self._messages: list[Message] = []
        self._wire: list[Wire] = self._initial_wire()
        self._tools_source: ToolSchemas | None = None
        self._tools_wire: list[Wire] | None = None
        for message in history:
            self._append(message)

    # -- LlmSession ---------------------------------------------------------------------------

    @property
    def model(self) -> str:
        """The model name as the provider knows it."""
        return self._model

    async def request(self, turn: TurnInput) -> LlmResponse:
        """Send ``turn`` (its message joins the history first); ``tools=None`` asks for an answer without tools."""
        self._append(turn.message())
        return await self._complete(turn.tools)

    def request_stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        """Streaming form of ``request``; the turn's message joins the history at once."""
        self._append(turn.message())
        return self._stream(turn.tools)

    def record(self, results: Sequence[ToolResult]) -> None:
        """Append results to the history without a request."""
        if (message := results_message(results)) is not None:
            self._append(message)

    def history(self) -> list[Message]:
        """The conversation so far, provider-neutral (without the system prompt)."""
        return list(self._messages)

    # -- the wire hooks -------------------------------------------------------------------------

    def _initial_wire(self) -> list[Wire]:
        """Wire messages before any history (OpenAI puts the system prompt here)."""
        return []

    @abstractmethod
    def _message_to_wire(self, message: Message) -> list[Wire]:
        """The wire messages for one neutral message (possibly none, possibly several)."""

    @abstractmethod
    def _tools_to_wire(self, tools: ToolSchemas) -> list[Wire]:
        """Neutral tool schemas in the provider's shape."""

    @abstractmethod
    def _request(self, tools: list[Wire] | None, tools_allowed: bool) -> dict[str, Any]:
        """The keyword arguments of one create call (``self._wire`` holds the messages)."""

    @abstractmethod
    def _open(self, request: dict[str, Any], *, stream: bool) -> AbstractAsyncContextManager[Any]:
        """The SDK's ``with_streaming_response`` call: entered, it holds a response whose body is unread.

        The SDK makes the request, retries and raises status errors; the body is read here
        (``http_body``), bounded and checked, because the SDK trusts whatever arrives.
        """

    @abstractmethod
    def _parse(self, body: dict[str, Any]) -> LlmResponse:
        """A non-streamed JSON body as a response. Raises MalformedResponse or ErrorReply."""

    @abstractmethod
    def _accumulator(self) -> StreamAccumulator:
        """A fresh accumulator for one streamed response."""

    # -- mechanics -----------------------------------------------------------------------------

    def _append(self, message: Message) -> None:
        self._messages.append(message)
        self._wire.extend(self._message_to_wire(message))

    def _prepare(self, tools: ToolSchemas | None) -> dict[str, Any]:
        """The request for this turn.

        ``None`` re-sends the last tools with tool use switched off, because a history holding tool
        calls must keep their definitions on some APIs (Anthropic's).
        """
        if tools is None:
            return self._request(self._tools_wire, False)
        if tools is not self._tools_source:  # the loop passes the same list every turn
            self._tools_source = tools
            self._tools_wire = self._tools_to_wire(tools) if tools else None
        return self._request(self._tools_wire, True)

    async def _complete(self, tools: ToolSchemas | None) -> LlmResponse:
        request = self._prepare(tools)
        started = False
        try:
            async with self._open(request, stream=False) as raw:
                started = True
                body = await read_json(raw.http_response, timeout=self._errors.timeout)
        except Exception as error:
            translated = self._translated(error, mid_stream=started)
            if translated is error:
                raise
            raise translated from error
        try:
            response = self._parse(body)
        except (MalformedResponse, ErrorReply) as error:
            raise self._translated(error) from error
        self._append(Message(role="assistant", content=response.content))
        return response

    async def _stream(self, tools: ToolSchemas | None) -> AsyncIterator[StreamEvent]:
        request = self._prepare(tools)
        accumulator = self._accumulator()
        started = False
        try:
            async with self._open(request, stream=True) as raw:
                started = True
                events = sse_events(raw.http_response, idle_timeout=self._errors.timeout)
                async for sse in events:
                    for event in accumulator.feed(sse):
                        yield event
                    if accumulator.done:
                        await _drain(events)
                        break
            response = accumulator.finish()
        except Exception as error:
            translated = self._translated(error, mid_stream=started)
            if translated is error:
                raise
            raise translated from error
        self._append(Message(role="assistant", content=response.content))
        yield StreamCompleted(response=response)

    def _translated(self, error: Exception, *, mid_stream: bool = False) -> Exception:
        """The domain error for ``error``, or ``error`` itself (ours, or a bug to surface as is)."""
        if isinstance(error, ProviderError):
            return error
        if isinstance(error, MalformedResponse):
            return self._errors.malformed(str(error), mid_stream=mid_stream)
        if isinstance(error, ErrorReply):
            return self._errors.error_reply(str(error), mid_stream=mid_stream)
        if isinstance(error, ResponseStalled):
            return self._errors.stalled(str(error))
        return self._errors.translate(error, self._sdk, mid_stream=mid_stream) or error


def require_unique_ids(calls: Sequence[ToolCall]) -> None:
    """Raise MalformedResponse when two tool calls share an id: results are matched by id."""
    seen: set[str] = set()
    for call in calls:
        if call.native_id in seen:
            raise MalformedResponse(f"the tool call id {call.native_id!r} appears more than once")
        seen.add(call.native_id)


DRAIN_SECONDS = 1.0
"""How long the rest of a finished stream (``[DONE]``, the body's end) is read for."""


async def _drain(events: AsyncIterator[Any]) -> None:
    """Read what follows a stream's final event, briefly, ignoring it.

    A body left unread cannot go back to the connection pool: the next request would open a new
    connection (a new TLS handshake, against a real provider). Whatever arrives, or does not
    arrive within ``DRAIN_SECONDS``, the response is already complete.
    """
    with contextlib.suppress(Exception):
        async with asyncio.timeout(DRAIN_SECONDS):
            async for _ in events:
                pass


def decode_arguments(text: str) -> tuple[dict[str, Any], str | None, str | None]:
    """Parse a tool call's argument text: ``(input, input_error, raw_input)``.

    Empty text means no arguments (some servers send ``""`` for parameterless tools). Text that is
    not a JSON object yields ``({}, reason, text)`` so the model can be told and correct itself.
    """
    if not text.strip():
        return {}, None, None
    try:
        value = json.loads(text)
    except ValueError as error:
        return {}, f"the arguments are not valid JSON: {error}", text
    except RecursionError:  # json.loads recurses per nesting level: ~1,000 levels exhaust the stack
        return {}, "the arguments are nested too deeply to read", text
    if not isinstance(value, dict):
        return {}, f"the arguments must be a JSON object, got {type(value).__name__}", text
    return value, None, None
