"""Provider-neutral conversation history, from which any provider's wire format can be rebuilt."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field, TypeAdapter

from quorum.domain.responses import ReasoningBlock, TextBlock
from quorum.domain.tools import ImagePart, ToolCall, ToolResult

HistoryBlock = Annotated[TextBlock | ToolCall | ToolResult | ImagePart | ReasoningBlock, Field(discriminator="type")]
"""A message's content: text, the assistant's calls and kept reasoning, the user's results
(``ToolResult.for_model``) and the images the user sent with a task (``RunRequest.task_images``)."""


class Message(BaseModel):
    """One message of a conversation: the user's (text, tool results) or the assistant's."""

    model_config = ConfigDict(frozen=True)

    role: Literal["user", "assistant"]
    content: tuple[HistoryBlock, ...]


HISTORY_ADAPTER: TypeAdapter[list[Message]] = TypeAdapter(list[Message])
"""Validates and serialises a whole history (``HISTORY_ADAPTER.dump_json(messages)``)."""
