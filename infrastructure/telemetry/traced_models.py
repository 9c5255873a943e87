"""A gateway whose sessions trace each model request as a ``chat {model}`` span (and its metrics).

Reviewer models and MCP sampling talk through the same gateway, so their requests are ``chat``
spans too, under whatever span is current: the review of a call, the tool call that sampled.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from quorum.application.ports.llm import LlmGateway, LlmSession, TurnInput
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse
from quorum.domain.streaming import StreamCompleted, StreamEvent
from quorum.domain.tools import ToolResult
from quorum.infrastructure.telemetry.core import Telemetry


class TracedGateway:
    """``LlmGateway`` around ``inner``; ``provider_of(model_id)`` names ``gen_ai.provider.name``."""

    def __init__(self, inner: LlmGateway, telemetry: Telemetry, provider_of: Callable[[str], str]) -> None:
        self._inner = inner
        self._telemetry = telemetry
        self._provider_of = provider_of

    def session(
        self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()
    ) -> LlmSession:
        session = self._inner.session(model_id, system_prompt, history=history)
        return TracedSession(session, self._telemetry, self._provider_of(model_id), system_prompt)

    def __getattr__(self, name: str) -> Any:  # the gateway's other members (aclose, ...) as they are
        return getattr(self._inner, name)


class TracedSession:
    """``LlmSession`` around ``inner``: each request (streamed or not) is one ``chat`` span."""

    def __init__(self, inner: LlmSession, telemetry: Telemetry, provider: str, system_prompt: str | None) -> None:
        self._inner = inner
        self._telemetry = telemetry
        self._provider = provider
        self._system = system_prompt

    @property
    def model(self) -> str:
        return self._inner.model

    def history(self) -> list[Message]:
        return self._inner.history()

    def record(self, results: Sequence[ToolResult]) -> None:
        self._inner.record(results)

    async def request(self, turn: TurnInput) -> LlmResponse:
        call = self._telemetry.chat(self._provider, self._inner.model, stream=False)
        try:
            response = await self._inner.request(turn)
        except BaseException as error:
            call.fail(error)
            raise
        call.finish(response, *self._sent())
        return response

    def request_stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        return self._stream(turn)

    async def _stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        # The span is never made current: an async generator may be resumed in another context.
        call = self._telemetry.chat(self._provider, self._inner.model, stream=True)
        completed: LlmResponse | None = None
        try:
            async for event in self._inner.request_stream(turn):
                if isinstance(event, StreamCompleted):
                    completed = event.response
                yield event
        except BaseException as error:
            call.fail(error)
            raise
        if completed is None:
            call.fail(_Incomplete())
        else:
            call.finish(completed, *self._sent())

    def _sent(self) -> tuple[list[Message], str | None]:
        """What the request sent (the history before its response), read only when content is captured."""
        if not self._telemetry.capture_content:
            return [], None
        return self._inner.history()[:-1], self._system

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


class _Incomplete(Exception):
    """The stream ended without a complete response (``error.type`` of such a request)."""
