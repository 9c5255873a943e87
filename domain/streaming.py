"""Events of a streamed model response."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field

from quorum.domain.responses import LlmResponse, ReasoningBlock


class StreamTextDelta(BaseModel):
    """A piece of text as it arrives."""

    model_config = ConfigDict(frozen=True)

    type: Literal["text_delta"] = "text_delta"
    text: str


class StreamToolCallDelta(BaseModel):
    """A fragment of the ``index``-th tool call: its id and name arrive once, arguments in pieces."""

    model_config = ConfigDict(frozen=True)

    type: Literal["tool_call_delta"] = "tool_call_delta"
    index: int
    id: str | None = None
    name: str | None = None
    arguments_delta: str = ""


class StreamReasoning(BaseModel):
    """A reasoning block, complete (its signature arrived): announced before the text that follows it."""

    model_config = ConfigDict(frozen=True)

    type: Literal["reasoning"] = "reasoning"
    block: ReasoningBlock


class StreamCompleted(BaseModel):
    """The whole response, equal to what the non-streaming call returns. Always the last event."""

    model_config = ConfigDict(frozen=True)

    type: Literal["completed"] = "completed"
    response: LlmResponse


class StreamError(BaseModel):
    """The stream failed; adapters usually raise a ProviderError instead of yielding this."""

    model_config = ConfigDict(frozen=True)

    type: Literal["error"] = "error"
    message: str


StreamEvent = Annotated[
    StreamTextDelta | StreamToolCallDelta | StreamReasoning | StreamCompleted | StreamError,
    Field(discriminator="type"),
]
