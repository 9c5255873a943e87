"""The Chat Completions reply shapes Quorum reads, validated strictly (the SDK validates nothing).

Only the fields Quorum uses are declared; others are ignored. A field of the wrong type, a
``null`` where a list is needed or no choice at all makes the reply malformed.
"""

from __future__ import annotations

from pydantic import Field

from quorum.infrastructure.providers.http_body import Shape


class PromptDetails(Shape):
    """``usage.prompt_tokens_details``: how many of the prompt tokens were read from the cache."""

    cached_tokens: int | None = None


class Usage(Shape):
    """Token counts; servers that count nothing send zeros or nulls."""

    prompt_tokens: int | None = None
    completion_tokens: int | None = None
    prompt_tokens_details: PromptDetails | None = None


class Function(Shape):
    """A called function: its name and its arguments as JSON text."""

    name: str
    arguments: str = ""


class ToolCall(Shape):
    """One complete tool call of a non-streamed reply."""

    id: str
    function: Function


class ChatMessage(Shape):
    """The assistant's message: text and/or tool calls."""

    content: str | None = None
    tool_calls: list[ToolCall] | None = None


class Choice(Shape):
    """One choice of a reply (Quorum reads the first)."""

    message: ChatMessage
    finish_reason: str | None = None


class Completion(Shape):
    """A non-streamed ``chat.completion``."""

    model: str | None = None
    choices: list[Choice] = Field(min_length=1)
    usage: Usage | None = None


class FunctionDelta(Shape):
    """A fragment of a streamed call's name and arguments."""

    name: str | None = None
    arguments: str | None = None


class ToolCallDelta(Shape):
    """A fragment of a streamed tool call; ``index`` says which call it continues."""

    index: int | None = None
    id: str | None = None
    function: FunctionDelta | None = None


class Delta(Shape):
    """What one chunk adds to a choice."""

    content: str | None = None
    tool_calls: list[ToolCallDelta] | None = None


class ChunkChoice(Shape):
    """One choice of a chunk."""

    index: int | None = None
    delta: Delta | None = None
    finish_reason: str | None = None


class Chunk(Shape):
    """A ``chat.completion.chunk``; the last one may carry only usage."""

    model: str | None = None
    choices: list[ChunkChoice] = Field(default_factory=list)
    usage: Usage | None = None
