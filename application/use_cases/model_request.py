"""One model request of the loop, streamed or not, its text reported as ``text`` events."""

from __future__ import annotations

import dataclasses
from collections.abc import AsyncIterator

from quorum.application.ports.llm import LlmSession, TurnInput
from quorum.application.ports.observer import RunObserver
from quorum.domain.errors import ProviderError
from quorum.domain.events import ReasoningEvent, TextDelta
from quorum.domain.responses import LlmResponse, ReasoningLevel
from quorum.domain.streaming import StreamCompleted, StreamError, StreamEvent, StreamReasoning, StreamTextDelta


async def request(
    session: LlmSession, turn: TurnInput, *, stream: bool, observer: RunObserver, reasoning: ReasoningLevel = "off"
) -> LlmResponse:
    """Send ``turn`` (asking for ``reasoning``) and return the complete response.

    Streamed, each text delta is emitted as it arrives; otherwise the response's whole text is
    one ``text`` event. Each kept reasoning block is a ``reasoning`` event, before the text (its
    place in the response): the run log keeps it, so a continued run sends it back.

    Raises:
        ProviderError: the request failed, or the stream reported an error or ended early.
    """
    if reasoning != turn.reasoning:
        turn = dataclasses.replace(turn, reasoning=reasoning)
    if stream:
        return await _consume(session.request_stream(turn), observer)
    response = await session.request(turn)
    for block in response.reasoning():
        observer.on_event(ReasoningEvent.of(block))
    if text := response.text_content():
        observer.on_event(TextDelta(text=text))
    return response


async def _consume(events: AsyncIterator[StreamEvent], observer: RunObserver) -> LlmResponse:
    completed: LlmResponse | None = None
    announced = 0  # reasoning blocks announced during the stream; the rest are announced at its end
    async for event in events:
        if isinstance(event, StreamTextDelta):
            if event.text:
                observer.on_event(TextDelta(text=event.text))
        elif isinstance(event, StreamReasoning):
            announced += 1
            observer.on_event(ReasoningEvent.of(event.block))
        elif isinstance(event, StreamCompleted):
            completed = event.response
        elif isinstance(event, StreamError):
            raise ProviderError(event.message, provider="stream")
    if completed is None:
        raise ProviderError("the response stream ended without a complete response", provider="stream")
    for block in completed.reasoning()[announced:]:
        observer.on_event(ReasoningEvent.of(block))
    return completed
