"""ProviderSession: the one ``LlmSession`` of every SDK-backed provider, over a ``WireApi``.

The session keeps the conversation and makes the requests; the ``WireApi`` (``wire_api.py``) says
how one neutral ``Message`` becomes wire messages, what a request holds, which SDK call makes it,
and how a response or a stream becomes an ``LlmResponse``. The neutral history is the truth; the
wire list is kept beside it, append-only, so a turn costs the new messages only.

Everything a provider can send is translated here: SDK exceptions, and the reading of the body
(``http_body``): a malformed reply, an error object, a stalled stream all become ``ProviderError``.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Sequence
from types import ModuleType
from typing import Any

from quorum.application.ports.llm import ToolSchemas, TurnInput, results_message
from quorum.domain.errors import ProviderError
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse
from quorum.domain.streaming import StreamCompleted, StreamEvent
from quorum.domain.tools import ToolResult
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.http_body import (
    ErrorReply,
    MalformedResponse,
    ResponseStalled,
    read_json,
    sse_events,
)
from quorum.infrastructure.providers.wire_api import Wire, WireApi


class ProviderSession:
    """Implements ``LlmSession`` for one model of one provider instance, speaking ``api``.

    Args:
        api: the provider API's wire mapping.
        client: returns the SDK client of the running event loop (the gateway's).
        model: the model name as the provider knows it.
        system_prompt: sent with every request, not part of ``history()``.
        history: a neutral conversation to continue (possibly from another provider).
        errors: translates SDK exceptions into ``ProviderError``.
        sdk: the SDK module whose exception classes ``errors`` matches against.
    """

    def __init__(
        self,
        *,
        api: WireApi[Any],
        client: Callable[[], Any],
        model: str,
        system_prompt: str | None,
        history: Sequence[Message],
        errors: ErrorTranslator,
        sdk: ModuleType,
    ) -> None:
        self._api = api
        self._client = client
        self._model = model
        self._system_prompt = system_prompt
        self._errors = errors
        self._sdk = sdk
        self._messages: list[Message] = []
        self._wire: list[Wire] = api.initial_wire(system_prompt)
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
        return await self._complete(turn)

    def request_stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        """Streaming form of ``request``; the turn's message joins the history at once."""
        self._append(turn.message())
        return self._stream(turn)

    def record(self, results: Sequence[ToolResult]) -> None:
        """Append results to the history without a request."""
        if (message := results_message(results)) is not None:
            self._append(message)

    def history(self) -> list[Message]:
        """The conversation so far, provider-neutral (without the system prompt)."""
        return list(self._messages)

    # -- mechanics -----------------------------------------------------------------------------

    def _append(self, message: Message) -> None:
        self._messages.append(message)
        self._wire.extend(self._api.message_to_wire(message))

    def _prepare(self, turn: TurnInput) -> dict[str, Any]:
        """The request for ``turn``, asking for its reasoning and its answer's schema as the API can.

        ``None`` re-sends the last tools with tool use switched off, because a history holding tool
        calls must keep their definitions on some APIs (Anthropic's).
        """
        tools = turn.tools
        if tools is not None and tools is not self._tools_source:  # the loop passes the same list every turn
            self._tools_source = tools
            self._tools_wire = self._api.tools_to_wire(tools) if tools else None
        request = self._api.request(self._model, self._system_prompt, self._wire, self._tools_wire, tools is not None)
        request = self._api.with_reasoning(request, turn.reasoning)
        if turn.answer_schema is not None:
            request = self._api.with_answer_schema(request, turn.answer_schema)
        return request

    def _answer(self, turn: TurnInput, response: LlmResponse) -> LlmResponse:
        return self._api.answer_of(response) if turn.answer_schema is not None else response

    async def _complete(self, turn: TurnInput) -> LlmResponse:
        request = self._prepare(turn)
        started = False
        try:
            async with self._api.open(self._client(), request, stream=False) as raw:
                started = True
                body = await read_json(raw.http_response, timeout=self._errors.timeout)
        except Exception as error:
            translated = self._translated(error, mid_stream=started)
            if translated is error:
                raise
            raise translated from error
        try:
            response = self._answer(turn, self._api.parse(body))
        except (MalformedResponse, ErrorReply) as error:
            raise self._translated(error) from error
        self._append(Message(role="assistant", content=response.content))
        return response

    async def _stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        request = self._prepare(turn)
        accumulator = self._api.accumulator(self._errors)
        started = False
        try:
            async with self._api.open(self._client(), request, stream=True) as raw:
                started = True
                events = sse_events(raw.http_response, idle_timeout=self._errors.timeout)
                async for sse in events:
                    for event in accumulator.feed(sse):
                        yield event
                    if accumulator.done:
                        await _drain(events)
                        break
            response = self._answer(turn, accumulator.finish())
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
