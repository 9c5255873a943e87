"""The calls of a conversation that succeeded: what a tool may ask before acting (was this file read?).

A run continues a conversation (``--continue``, an approval later, chat): the calls of its
history count, as do the calls of the run itself the moment they succeed, for every later
response (a file tool checks before review, so calls of the same response do not see each other). ``RunAgent`` sets
``current_succeeded_calls`` for a run; a tool reads it through ``succeeded_calls()``. Outside
a run (a tool called directly, a workflow activity in another process) there is none, and a tool
that depends on it does not check.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextvars import ContextVar
from typing import TYPE_CHECKING

from quorum.domain.messages import Message
from quorum.domain.tools import ToolCall, ToolResult

if TYPE_CHECKING:
    from quorum.application.deferral import PendingTurn


class SucceededCalls:
    """The successful calls of one conversation, oldest first; grows as the run's calls succeed."""

    def __init__(self, calls: Sequence[ToolCall] = ()) -> None:
        self._calls = list(calls)
        self._shown: list[ToolCall] = []

    @classmethod
    def of(cls, history: Sequence[Message], pending: PendingTurn | None = None) -> SucceededCalls:
        """The calls of ``history`` whose result was not an error, then those of a deferred ``pending`` turn."""
        if pending is not None:
            turn = [Message(role="assistant", content=pending.calls), Message(role="user", content=pending.results)]
            history = [*history, *turn]
        calls: list[ToolCall] = []
        answered: set[str] = set()
        failed: set[str] = set()
        for message in history:  # one walk: a continued conversation's history can be long
            for block in message.content:
                if isinstance(block, ToolCall):
                    calls.append(block)
                elif isinstance(block, ToolResult):
                    answered.add(block.call_id)
                    if block.is_error:
                        failed.add(block.call_id)
        return cls([call for call in calls if call.native_id in answered and call.native_id not in failed])

    def add(self, call: ToolCall) -> None:
        """``call`` succeeded."""
        self._calls.append(call)

    def shown(self, call: ToolCall) -> None:
        """What ``call`` would show the model was shown (a refusal carried it): it counts from the next response.

        Not at once: another call of the same response was written before the model saw it.
        """
        self._shown.append(call)

    def next_response(self) -> None:
        """A new response's calls are checked: what earlier refusals showed counts now."""
        self._calls.extend(self._shown)
        self._shown.clear()

    def __iter__(self) -> Iterator[ToolCall]:
        return iter(list(self._calls))


current_succeeded_calls: ContextVar[SucceededCalls | None] = ContextVar("quorum_succeeded_calls", default=None)


def succeeded_calls() -> SucceededCalls | None:
    """The current run's successful calls (its history's included); None outside a run."""
    return current_succeeded_calls.get()


def note_success(call: ToolCall) -> None:
    """Record that ``call`` of the current run succeeded; does nothing outside a run."""
    calls = current_succeeded_calls.get()
    if calls is not None:
        calls.add(call)
