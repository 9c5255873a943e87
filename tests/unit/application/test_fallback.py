"""FallbackGateway over fake sessions: when it moves, what it sends again, and that the move is kept."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import pytest

from quorum.application.fallback import FallbackGateway
from quorum.application.ports.llm import TurnInput
from quorum.domain.errors import ContextTooLong, ProviderError
from quorum.domain.events import ModelFallback
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, StopReason, TextBlock
from quorum.domain.streaming import StreamCompleted, StreamEvent, StreamTextDelta
from quorum.domain.tools import ToolResult


def _answer(text: str) -> LlmResponse:
    return LlmResponse(content=(TextBlock(text=text),), stop_reason=StopReason.end_turn())


@dataclass
class FakeSession:
    """Answers from ``outcomes`` in order: a response, or an error raised (after ``before`` deltas when streamed)."""

    model_id: str
    messages: list[Message]
    outcomes: list[Any]
    before: int = 0

    @property
    def model(self) -> str:
        return self.model_id.partition(":")[2]

    def history(self) -> list[Message]:
        return list(self.messages)

    async def request(self, turn: TurnInput) -> LlmResponse:
        self.messages.append(turn.message())
        outcome = self.outcomes.pop(0)
        if isinstance(outcome, Exception):
            raise outcome
        self.messages.append(Message(role="assistant", content=outcome.content))
        return outcome

    async def request_stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        self.messages.append(turn.message())
        outcome = self.outcomes.pop(0)
        for _ in range(self.before):
            yield StreamTextDelta(text="partial ")
        if isinstance(outcome, Exception):
            raise outcome
        yield StreamCompleted(response=outcome)

    def record(self, results: Sequence[ToolResult]) -> None:
        pass


@dataclass
class FakeGateway:
    scripts: dict[str, list[Any]]
    before: int = 0
    opened: list[tuple[str, list[Message]]] = field(default_factory=list)

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> Any:
        self.opened.append((model_id, list(history)))
        return FakeSession(model_id, list(history), self.scripts[model_id], self.before)


def _down(why: Any = "overloaded") -> ProviderError:
    return ProviderError("down", provider="a", status_code=529, unavailable=why)


async def test_a_move_sends_the_same_turn_on_the_history_before_it_and_is_kept() -> None:
    inner = FakeGateway({"a:x": [_down()], "b:y": [_answer("one"), _answer("two")]})
    moves: list[ModelFallback] = []
    gateway = FallbackGateway(inner, {"a:x": ["b:y"]}, moves.append)
    earlier = [Message(role="user", content=(TextBlock(text="before"),))]
    session = gateway.session("a:x", "sys", history=earlier)

    assert (await session.request(TurnInput.user("now"))).text_content() == "one"
    assert [(m.from_, m.to, m.reason) for m in moves] == [("a:x", "b:y", "overloaded")]
    assert inner.opened[1] == ("b:y", earlier)  # the failed turn's message is not carried twice
    assert [m.content[0].text for m in session.history()] == ["before", "now", "one"]  # type: ignore[union-attr]
    later = gateway.session("a:x", "sys")  # compaction, plan mode: the run stays on b:y
    assert (await later.request(TurnInput.user("again"))).text_content() == "two"
    assert [model for model, _ in inner.opened] == ["a:x", "b:y", "b:y"] and len(moves) == 1


@pytest.mark.parametrize(
    "error",
    [
        ProviderError("bad request", provider="a", status_code=400),
        ContextTooLong("too long", provider="a", status_code=400),
    ],
)
async def test_a_refused_request_does_not_move(error: ProviderError) -> None:
    inner = FakeGateway({"a:x": [error], "b:y": [_answer("never")]})
    gateway = FallbackGateway(inner, {"a:x": ["b:y"]}, lambda _: None)
    with pytest.raises(ProviderError) as caught:
        await gateway.session("a:x").request(TurnInput.user("hi"))
    assert caught.value is error and [model for model, _ in inner.opened] == ["a:x"]


async def test_a_stream_moves_only_before_its_first_event() -> None:
    inner = FakeGateway({"a:x": [_down("connection")], "b:y": [_answer("fine")]})
    gateway = FallbackGateway(inner, {"a:x": ["b:y"]}, lambda _: None)
    events = [e async for e in gateway.session("a:x").request_stream(TurnInput.user("hi"))]
    assert isinstance(events[-1], StreamCompleted) and events[-1].response.text_content() == "fine"

    started = FakeGateway({"a:x": [_down("connection")], "b:y": [_answer("never")]}, before=1)
    session = FallbackGateway(started, {"a:x": ["b:y"]}, lambda _: None).session("a:x")
    with pytest.raises(ProviderError, match="down"):
        _ = [e async for e in session.request_stream(TurnInput.user("hi"))]
    assert [model for model, _ in started.opened] == ["a:x"]


async def test_the_last_model_failing_raises_its_error_and_a_chainless_model_is_untouched() -> None:
    last = ProviderError("also down", provider="b", status_code=503, unavailable="server_error")
    inner = FakeGateway({"a:x": [_down()], "b:y": [last], "c:z": []})
    gateway = FallbackGateway(inner, {"a:x": ["b:y"]}, lambda _: None)
    with pytest.raises(ProviderError) as caught:
        await gateway.session("a:x").request(TurnInput.user("hi"))
    assert caught.value is last
    assert isinstance(gateway.session("c:z"), FakeSession)
