"""Reasoning on the Responses API: asking for it, and sending its items back unchanged.

Asking: ``[agent] reasoning`` becomes ``reasoning: {"effort": level}``, with ``include:
["reasoning.encrypted_content"]``: nothing is stored at OpenAI (``store: false``), so the model's
reasoning survives between the turns of a tool loop only as the encrypted items it returns.

Keeping: each ``reasoning`` output item (its ``id``, ``summary`` and ``encrypted_content``) is a
``ReasoningBlock`` holding the item as received, and goes back in the next request's ``input``
exactly where it came, before the calls it led to. Its readable text is the summary, when the
model sends one.
"""

from __future__ import annotations

from typing import Any

from quorum.domain.responses import ReasoningBlock, ReasoningLevel
from quorum.infrastructure.providers.http_body import MalformedResponse

API = "openai-responses"
"""``ReasoningBlock.api`` of the items this API returns: only this adapter sends them back."""

ENCRYPTED = "reasoning.encrypted_content"


def with_effort(request: dict[str, Any], level: ReasoningLevel) -> dict[str, Any]:
    """``request`` asking for ``level`` of reasoning, with its items returned encrypted (``off``: unchanged)."""
    if level == "off":
        return request
    include = [*request.get("include", []), ENCRYPTED]
    return {**request, "reasoning": {"effort": level}, "include": include}


def kept_item(item: dict[str, Any]) -> ReasoningBlock:
    """A ``reasoning`` output item as received, as a ``ReasoningBlock`` (its summary as the text).

    Raises:
        MalformedResponse: its summary is not a list of ``{"text": ...}`` parts, or its
            ``encrypted_content`` is not a string.
    """
    summary = item.get("summary", [])
    if not isinstance(summary, list) or not all(
        isinstance(p, dict) and isinstance(p.get("text"), str) for p in summary
    ):
        raise MalformedResponse("a reasoning item's summary is not a list of text parts")
    encrypted = item.get("encrypted_content")
    if encrypted is not None and not isinstance(encrypted, str):
        raise MalformedResponse("a reasoning item's encrypted_content is not a string")
    return ReasoningBlock(api=API, wire=dict(item), text="\n\n".join(part["text"] for part in summary))


def item_to_wire(block: ReasoningBlock) -> dict[str, Any] | None:
    """The item to send back, as received; None for another API's reasoning (not sendable here)."""
    if block.api != API or block.wire.get("type") != "reasoning":
        return None
    return dict(block.wire)
