"""Comparing a conversation rebuilt from the run log with the session's, whose calls keep the model's ids.

A model (the fakes, small models) may reuse a call id in a later turn; the run records such a call
under a fresh id (``c1_2``: ``quorum.application.call_ids``) while the live session keeps the
model's. ``with_live_ids`` maps the recorded ids back, by position, so the two compare equal.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quorum.domain.messages import Message
from quorum.domain.tools import ToolCall, ToolResult


def with_live_ids(recorded: Sequence[Message], live: Sequence[Message]) -> list[Message]:
    """``recorded`` with each call (and its result) under the id its counterpart in ``live`` has."""
    ids: dict[str, str] = {}
    for mine, theirs in zip(recorded, live, strict=False):
        my_calls = [b for b in mine.content if isinstance(b, ToolCall)]
        their_calls = [b for b in theirs.content if isinstance(b, ToolCall)]
        ids.update({m.native_id: t.native_id for m, t in zip(my_calls, their_calls, strict=False)})
    return [_renamed(message, ids) for message in recorded]


def _renamed(message: Message, ids: dict[str, str]) -> Message:
    def block(item: Any) -> Any:
        if isinstance(item, ToolCall):
            return item.model_copy(update={"native_id": ids.get(item.native_id, item.native_id)})
        if isinstance(item, ToolResult):
            return item.model_copy(update={"call_id": ids.get(item.call_id, item.call_id)})
        return item

    return message.model_copy(update={"content": tuple(block(b) for b in message.content)})
