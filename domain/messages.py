"""Provider-neutral conversation history, from which any provider's wire format can be rebuilt."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from quorum.domain.responses import TextBlock, ToolUseBlock
from quorum.domain.tools import ImagePart, ToolResultMessage


class ToolResultBlock(BaseModel):
    """A tool result inside a user message; ``images`` are sent as image input beside ``content``."""

    model_config = ConfigDict(frozen=True)

    type: Literal["tool_result"] = "tool_result"
    tool_use_id: str
    tool_name: str = ""
    content: str
    is_error: bool = False
    images: tuple[ImagePart, ...] = ()

    @classmethod
    def from_result(cls, result: ToolResultMessage) -> ToolResultBlock:
        return cls(
            tool_use_id=result.tool_use_id,
            tool_name=result.tool_name,
            content=result.output,
            is_error=result.is_error or result.is_rejected,
            images=result.images,
        )


HistoryBlock = Annotated[TextBlock | ToolUseBlock | ToolResultBlock, Field(discriminator="type")]


class Message(BaseModel):
    """One message of a conversation: the user's (text, tool results) or the assistant's."""

    model_config = ConfigDict(frozen=True)

    role: Literal["user", "assistant"]
    content: tuple[HistoryBlock, ...]


HISTORY_ADAPTER: TypeAdapter[list[Message]] = TypeAdapter(list[Message])
"""Validates and serialises a whole history (``HISTORY_ADAPTER.dump_json(messages)``)."""
