"""One model request of the loop, streamed or not, its text reported as ``text`` events."""

from __future__ import annotations

from collections.abc import AsyncIterator

from quorum.application.ports.llm import LlmSession, TurnInput
from quorum.application.ports.observer import RunObserver
from quorum.domain.errors import ProviderError
from quorum.domain.events import TextDelta
from quorum.domain.responses import LlmResponse
from quorum.domain.streaming import StreamCompleted, StreamError, StreamEvent, StreamTextDelta


async def request(session: LlmSession, turn: TurnInput, *, stream: bool, observer: RunObserver) -> LlmResponse:
    """Send ``turn`` and return the complete response.

    Streamed, each text delta is emitted as it arrives; otherwise the response's whole text is
    one ``text`` event.

    Raises:
        ProviderError: the request failed, or the stream reported an error or ended early.
    """
    if stream:
        return await _consume(session.request_stream(turn), observer)
    response = await session.request(turn)
    if text := response.text_content():
        observer.on_event(TextDelta(text=text))
    return response


async def _consume(events: AsyncIterator[StreamEvent], observer: RunObserver) -> LlmResponse:
    completed: LlmResponse | None = None
    async for event in events:
        if isinstance(event, StreamTextDelta):
            if event.text:
                observer.on_event(TextDelta(text=event.text))
        elif isinstance(event, StreamCompleted):
            completed = event.response
        elif isinstance(event, StreamError):
            raise ProviderError(event.message, provider="stream")
    if completed is None:
        raise ProviderError("the response stream ended without a complete response", provider="stream")
    return completed
