"""Prompt caching on the Messages API: where a request's ``cache_control`` breakpoints go.

Anthropic caches a request's prefix only up to a block marked ``cache_control``, and a request
reads the longest prefix an earlier request wrote (decision 210). Each request is marked at:

1. the end of its stable prefix (the tools, then the system prompt): the system prompt, or the
   last tool when there is none, so every request of a run, and every reviewer request, reads it;
2. the last content block of the newest message, once there is a conversation (more than one
   message), so the next request reads everything this one sent;
3. the last content block of the user message before it: where the previous request put its
   mark, so the read is found even when a turn added more blocks than the API looks back over
   (about 20).

Three of the API's four breakpoints; the request is copied where it is marked, never changed in
place (the session's wire list is append-only and reused).
"""

from __future__ import annotations

from typing import Any, Literal

from quorum.infrastructure.providers.wire_api import Wire

MAX_BREAKPOINTS = 4
"""The API's limit per request; ``with_breakpoints`` places at most three."""

_UNMARKABLE = frozenset({"thinking", "redacted_thinking"})
"""Blocks the API refuses a ``cache_control`` on (an empty text block is refused too)."""


def cache_control(ttl: Literal["5m", "1h"]) -> Wire:
    """The marker: ``{"type": "ephemeral"}``, with ``"ttl": "1h"`` for the one-hour cache."""
    return {"type": "ephemeral", "ttl": "1h"} if ttl == "1h" else {"type": "ephemeral"}


def with_breakpoints(request: dict[str, Any], ttl: Literal["5m", "1h"]) -> dict[str, Any]:
    """A copy of the create call's arguments ``request`` with its cache breakpoints (module docstring)."""
    marker = cache_control(ttl)
    marked = dict(request)
    system = request.get("system")
    if isinstance(system, str) and system:
        marked["system"] = [{"type": "text", "text": system, "cache_control": marker}]
    elif isinstance(system, list) and system:
        marked["system"] = _marked_blocks(system, marker)
    elif tools := request.get("tools"):
        marked["tools"] = [*tools[:-1], {**tools[-1], "cache_control": marker}]
    messages: list[Wire] = request.get("messages") or []
    if len(messages) > 1:
        marked["messages"] = copied = list(messages)
        for index in _marked_messages(messages):
            copied[index] = _marked_message(messages[index], marker)
    return marked


def _marked_messages(messages: list[Wire]) -> list[int]:
    """The newest message, and the user message before it (the previous request's newest)."""
    newest = len(messages) - 1
    earlier = [i for i in range(newest - 1, -1, -1) if messages[i].get("role") == "user"]
    return [newest, *earlier[:1]]


def _marked_message(message: Wire, marker: Wire) -> Wire:
    content = message.get("content")
    if isinstance(content, str):
        if not content:
            return message
        return {**message, "content": [{"type": "text", "text": content, "cache_control": marker}]}
    if isinstance(content, list):
        return {**message, "content": _marked_blocks(content, marker)}
    return message


def _marked_blocks(blocks: list[Wire], marker: Wire) -> list[Wire]:
    """``blocks`` with the last one that takes a marker marked (none marked when none does)."""
    for index in range(len(blocks) - 1, -1, -1):
        block = blocks[index]
        if block.get("type") in _UNMARKABLE or (block.get("type") == "text" and not block.get("text")):
            continue
        return [*blocks[:index], {**block, "cache_control": marker}, *blocks[index + 1 :]]
    return blocks
