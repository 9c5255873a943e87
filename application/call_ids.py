"""Call ids the run's records can trust: one id per call across the whole conversation.

A model may reuse a call id it used in an earlier turn (small models count from ``call_1`` again
each turn). The provider pairs calls and results by id within one request, so the model's id must
go back on the wire as it sent it; but the run's records (events, the run log, deferred approvals)
key calls by id across turns, and a reused id let a new call shadow an approved one (the run
waited for a decision it could never receive). So each call gets an internal id unique in the
conversation: the model's own when it is new, else the model's with ``_2``, ``_3``… appended
(letters, digits, ``_`` and ``-`` only, as every API accepts); the results go back to the session
under the model's id.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from quorum.domain.messages import Message
from quorum.domain.tools import ToolCall, ToolResult


class CallIds:
    """The ids used so far in a conversation; hands out internal ids for a response's calls."""

    def __init__(self, used: Iterable[str] = ()) -> None:
        self._used = set(used)
        self._next: dict[str, int] = {}
        """Per model id, the suffix to try next: a model reusing one id every turn costs one probe, not N."""

    @classmethod
    def of(cls, history: Sequence[Message], calls: Sequence[ToolCall] = ()) -> CallIds:
        """The ids of ``history``'s calls and of ``calls`` (a deferred turn's), all taken."""
        ids = [block.native_id for message in history for block in message.content if isinstance(block, ToolCall)]
        return cls([*ids, *(call.native_id for call in calls)])

    def fresh(self, calls: Sequence[ToolCall]) -> tuple[list[ToolCall], dict[str, str]]:
        """``calls`` with internal ids, and the map from each renamed internal id to the model's id."""
        renamed: list[ToolCall] = []
        wire: dict[str, str] = {}
        for call in calls:
            internal = call.native_id
            count = self._next.get(call.native_id, 1)
            while internal in self._used:
                count += 1
                internal = f"{call.native_id}_{count}"
            self._next[call.native_id] = count
            self._used.add(internal)
            if internal != call.native_id:
                wire[internal] = call.native_id
                call = call.model_copy(update={"native_id": internal})
            renamed.append(call)
        return renamed, wire


def on_the_wire(results: Sequence[ToolResult], wire: dict[str, str]) -> list[ToolResult]:
    """``results`` answering the model's own ids (``wire``: internal id → the model's)."""
    if not wire:
        return list(results)
    return [r.model_copy(update={"call_id": wire[r.call_id]}) if r.call_id in wire else r for r in results]
