"""The loop guard: a call repeating the previous calls exactly is answered without running again."""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from quorum.domain.tools import ToolCall


@dataclass
class RepeatGuard:
    """Remembers the run's calls in order and spots a call identical to each of the last ``limit``.

    A call is identical when its tool and its arguments (compared as canonical JSON) are the same.
    Every call is remembered, the refused ones too, so a model that keeps asking keeps being told.
    Small models re-read the same file until the turn limit; nothing else tells them they already
    have the result (issue 23).
    """

    limit: int
    _recent: list[str] = field(default_factory=list)

    def repeats(self, calls: Sequence[ToolCall]) -> set[int]:
        """Remember one response's ``calls``; the indexes of those equal to each of the last ``limit`` before it.

        Calls are compared with the earlier responses' calls only: identical calls in one
        response run side by side, as the model asked.
        """
        recent = self._recent[-self.limit :]
        repeated = {
            index
            for index, call in enumerate(calls)
            if len(recent) == self.limit and all(seen == _key(call) for seen in recent)
        }
        self._recent = [*recent, *(_key(call) for call in calls)][-self.limit :]
        return repeated


def _key(call: ToolCall) -> str:
    try:
        arguments = json.dumps(call.arguments, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):  # arguments too odd to compare never count as a repeat
        arguments = repr(id(call))
    return f"{call.name}\x00{arguments}"
