"""Shared mechanics of the offline sessions: history keeping and simulated streaming."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence

from quorum.application.ports.llm import ToolSchemas, TurnInput, results_message
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, ReasoningBlock, TextBlock
from quorum.domain.streaming import (
    StreamCompleted,
    StreamEvent,
    StreamReasoning,
    StreamTextDelta,
    StreamToolCallDelta,
)
from quorum.domain.tools import ToolCall, ToolResult


class OfflineSession:
    """An LlmSession whose answers come from ``respond`` instead of a model.

    Subclasses implement ``respond(tools)``; ``tools`` is None when the model must answer without
    tools. History is kept exactly as a real session keeps it.
    """

    def __init__(self, model: str, system_prompt: str | None, history: Sequence[Message]) -> None:
        self._model = model
        self.system_prompt = system_prompt
        self._messages: list[Message] = list(history)

    @property
    def model(self) -> str:
        return self._model

    def respond(self, tools: ToolSchemas | None) -> LlmResponse:
        raise NotImplementedError

    def _answer(self, tools: ToolSchemas | None) -> LlmResponse:
        response = self.respond(tools)
        self._messages.append(Message(role="assistant", content=response.content))
        return response

    async def request(self, turn: TurnInput) -> LlmResponse:
        self._messages.append(turn.message())
        return self._answer(turn.tools)

    def request_stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        self._messages.append(turn.message())
        return _stream(self._answer(turn.tools))

    def record(self, results: Sequence[ToolResult]) -> None:
        if (message := results_message(results)) is not None:
            self._messages.append(message)

    def history(self) -> list[Message]:
        return list(self._messages)

    def last_results(self) -> list[ToolResult]:
        """The tool results of the latest user message (what the model "saw" last)."""
        for message in reversed(self._messages):
            if message.role == "user":
                return [b for b in message.content if isinstance(b, ToolResult)]
        return []


async def _stream(response: LlmResponse) -> AsyncIterator[StreamEvent]:
    """Replay a response as a real stream would: reasoning, text word by word, then tool-call deltas."""
    for index, block in enumerate(response.content):
        if isinstance(block, ReasoningBlock):
            yield StreamReasoning(block=block)
        elif isinstance(block, TextBlock):
            words = block.text.split(" ")
            for i, word in enumerate(words):
                yield StreamTextDelta(text=word if i == len(words) - 1 else word + " ")
        elif isinstance(block, ToolCall):
            yield StreamToolCallDelta(
                index=index, id=block.native_id, name=block.name, arguments_delta=block.raw_arguments or ""
            )
    yield StreamCompleted(response=response)
