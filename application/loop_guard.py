"""The loop guard: a call that repeats what the run already did, to the same result, is not run again.

Two patterns are caught (issue 23, then 34):

- **in a row**: a call identical to each of the last ``limit`` calls (the model re-reads one file);
- **in a cycle**: a call already made ``limit`` times within the last ``window`` calls, in any
  order, every time to the same result (``read_file``, ``edit_file``, ``read_file``,
  ``edit_file``… with the edit failing the same way each time). A call whose result changed (a
  file read again after a successful edit) is progress, not a cycle, and runs.

A caught call is answered with what it repeats and what to try, without review or execution:
one warning per response. A model that heeds it goes on; after ``warnings`` warnings, the next
repeat ends the run ``loop_detected`` (``exhausted``) instead of spending the turn cap.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from dataclasses import dataclass, field

from quorum.domain.tools import ToolCall, ToolResult

WINDOW = 10
"""Calls looked back over for a cycle."""

WARNINGS = 2
"""Warnings before a repeat ends the run."""


@dataclass
class RepeatGuard:
    """Remembers the run's calls and their results in order, and spots repeats (see the module docstring).

    A call is identical when its tool and its arguments (compared as canonical JSON) are the same.
    Every call is remembered in the in-a-row record, the refused ones too, so a model that keeps
    asking keeps being told.
    """

    limit: int
    window: int = WINDOW
    warnings: int = WARNINGS
    warned: int = 0
    exhausted: bool = False
    _recent: list[str] = field(default_factory=list)
    _runs: list[tuple[str, str]] = field(default_factory=list)

    def repeats(self, calls: Sequence[ToolCall]) -> dict[int, str]:
        """Remember one response's ``calls``; the indexes of those that repeat (not to be run), with how.

        How: ``"row"`` (identical to each of the last ``limit`` calls) or ``"cycle"`` (see the
        module docstring).

        Calls are compared with the earlier responses' calls only: identical calls in one
        response run side by side, as the model asked. A response with a repeat is one warning;
        one past ``warnings`` sets ``exhausted``.
        """
        recent = self._recent[-self.limit :]
        keys = [_key(call) for call in calls]
        repeated: dict[int, str] = {}
        for index, key in enumerate(keys):
            if len(recent) == self.limit and all(seen == key for seen in recent):
                repeated[index] = "row"
            elif self._cycles(key):
                repeated[index] = "cycle"
        self._recent = [*recent, *keys][-self.limit :]
        if repeated:
            self.exhausted = self.warned >= self.warnings
            self.warned += 1
        return repeated

    @property
    def warnings_left(self) -> int:
        """Warnings still to give before a repeat ends the run."""
        return max(self.warnings - self.warned, 0)

    def ran(self, call: ToolCall, result: ToolResult) -> None:
        """Remember that ``call`` ran (or was refused) with ``result``: the record cycles are judged on."""
        self._runs = [*self._runs, (_key(call), _digest(result))][-self.window :]

    def _cycles(self, key: str) -> bool:
        """``key`` ran ``limit`` times within the window, each time to the same result."""
        digests = [digest for seen, digest in self._runs if seen == key]
        return len(digests) >= self.limit and len(set(digests)) == 1


def _key(call: ToolCall) -> str:
    try:
        arguments = json.dumps(call.arguments, sort_keys=True, default=str)
    except (TypeError, ValueError, RecursionError):  # arguments too odd to compare never count as a repeat
        arguments = repr(id(call))
    return f"{call.name}\x00{arguments}"


def _digest(result: ToolResult) -> str:
    return hashlib.sha256(f"{result.is_error}\x00{result.output}".encode("utf-8", "surrogatepass")).hexdigest()
