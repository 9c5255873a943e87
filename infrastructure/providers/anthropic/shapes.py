"""The Messages API reply shapes Quorum reads, validated strictly (the SDK validates nothing).

Only the fields Quorum uses are declared; others are ignored, and so are block, delta and event
types Quorum does not use (citations, pings); thinking blocks are kept as received (``thinking.py``).
A known type of the wrong shape, such as ``"content": null`` or a ``tool_use`` whose ``input`` is not
an object, makes the reply malformed.
"""

from __future__ import annotations

from typing import Any

from quorum.infrastructure.providers.http_body import Shape


class Usage(Shape):
    """Token counts; ``input_tokens`` excludes the cache reads and writes (``wire.usage_of`` adds them)."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None


class TextContent(Shape):
    """A ``text`` block."""

    text: str


class ToolUseContent(Shape):
    """A ``tool_use`` block: in a stream its ``input`` is ``{}`` and arrives as JSON fragments."""

    id: str
    name: str
    input: dict[str, Any]


class Message(Shape):
    """A non-streamed ``message``; blocks are checked one by one (``block``)."""

    model: str | None = None
    content: list[dict[str, Any]]
    stop_reason: str | None = None
    usage: Usage | None = None


class StartMessage(Shape):
    """The message announced by ``message_start``."""

    model: str | None = None
    usage: Usage | None = None


class MessageStart(Shape):
    """``message_start``."""

    message: StartMessage


class BlockStart(Shape):
    """``content_block_start``."""

    index: int
    content_block: dict[str, Any]


class TextDelta(Shape):
    """A ``text_delta``."""

    text: str


class JsonDelta(Shape):
    """An ``input_json_delta``: a fragment of a tool call's input."""

    partial_json: str


class ThinkingDelta(Shape):
    """A ``thinking_delta``: a piece of a thinking block's text."""

    thinking: str


class SignatureDelta(Shape):
    """A ``signature_delta``: a thinking block's signature, before the block stops."""

    signature: str


class BlockDelta(Shape):
    """``content_block_delta``."""

    index: int
    delta: dict[str, Any]


class StopDelta(Shape):
    """The ``delta`` of ``message_delta``."""

    stop_reason: str | None = None


class OutputUsage(Shape):
    """The ``usage`` of ``message_delta``: cumulative counts; input fields only when the server sends them."""

    output_tokens: int | None = None
    input_tokens: int | None = None
    cache_creation_input_tokens: int | None = None
    cache_read_input_tokens: int | None = None


class MessageDelta(Shape):
    """``message_delta``: the stop reason and the final output token count."""

    delta: StopDelta
    usage: OutputUsage | None = None
