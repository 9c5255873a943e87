"""Prompt caching on OpenAI: one ``prompt_cache_key`` for every request of a conversation (both APIs).

OpenAI caches prompt prefixes by itself; the key only routes requests that share a prefix to the
same cache, so a run's requests (and those of the runs continuing its conversation) find what the
earlier ones left there (decision 210). The key is the run's ``current_conversation``; outside a
run (a Temporal worker's model activity) it is derived the same way from the first user text sent.
"""

from __future__ import annotations

from quorum.application.run_context import conversation_key, current_conversation
from quorum.infrastructure.providers.wire_api import Wire


def prompt_cache_key(messages: list[Wire]) -> str | None:
    """The conversation's key: the current run's, else from the first user message; None without one."""
    if key := current_conversation.get():
        return key
    for message in messages:
        if message.get("role") == "user":
            text = _first_text(message.get("content"))
            return conversation_key((), text) if text else None
    return None


_TEXT_PARTS = ("text", "input_text")
"""A text part of a Chat Completions message, of a Responses ``message`` item."""


def _first_text(content: object) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        for part in content:
            if isinstance(part, dict) and part.get("type") in _TEXT_PARTS and isinstance(part.get("text"), str):
                return str(part["text"])
    return ""
