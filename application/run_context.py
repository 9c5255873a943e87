"""What a piece of code is serving, for adapters that need to know it without a parameter for it.

``RunAgent.execute`` sets ``current_run_id``, ``current_run_model``, ``current_conversation`` and
``current_run_events`` for the duration of a run; ``ToolBatch`` sets ``current_call`` while a call
is reviewed and executed. Tasks inherit context variables when they are created, so every tool
call of a run sees its own run and call, even with many runs in flight on one event loop.
Outside a run they are ``""`` / ``None``.

Adapters report through these (a reviewer panel's votes as they arrive, a command's output line,
an MCP server's progress notification) without the ports growing a callback parameter each.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Sequence
from contextvars import ContextVar
from dataclasses import dataclass

from quorum.domain.events import RunEvent, ToolProgress, VoteCast
from quorum.domain.messages import Message
from quorum.domain.responses import TextBlock
from quorum.domain.review import Vote

current_run_id: ContextVar[str] = ContextVar("quorum_current_run_id", default="")

current_run_model: ContextVar[str] = ContextVar("quorum_current_run_model", default="")
"""The run's model (``provider:model``): what serves an MCP server's sampling request by default."""

current_conversation: ContextVar[str] = ContextVar("quorum_current_conversation", default="")
"""Names the conversation of the current run, the same for the runs continuing it
(``conversation_key``): a provider's prompt cache key (OpenAI's ``prompt_cache_key``)."""


def conversation_key(history: Sequence[Message], task: str) -> str:
    """``quorum-`` and a digest of the conversation's first user text (``task`` when it starts now).

    A run continuing a conversation (``--continue``, a chat's next message) gets the history
    starting with that same text, hence the same key; nothing of the text can be read from it.
    """
    first = task
    for message in history[:1]:
        first = next((block.text for block in message.content if isinstance(block, TextBlock)), task)
    return "quorum-" + hashlib.sha256(first.encode()).hexdigest()[:24]


current_run_events: ContextVar[Callable[[RunEvent], None] | None] = ContextVar(
    "quorum_current_run_events", default=None
)
"""Emits an event of the current run (to its observer, redacted); None outside a run."""


@dataclass(frozen=True)
class CallActivity:
    """The call being reviewed or executed, and where its live reports go."""

    call_id: str
    emit: Callable[[RunEvent], None]

    def vote(self, vote: Vote) -> None:
        """A reviewer voted on this call (the decision follows in the ``review`` event)."""
        self.emit(VoteCast.of(self.call_id, vote))

    def progress(self, message: str = "", progress: float | None = None, total: float | None = None) -> None:
        """The call made progress; callers throttle (a few reports per second at most)."""
        self.emit(ToolProgress(call_id=self.call_id, message=message, progress=progress, total=total))


current_call: ContextVar[CallActivity | None] = ContextVar("quorum_current_call", default=None)


def report_progress(message: str = "", progress: float | None = None, total: float | None = None) -> None:
    """Report progress of the call being executed; does nothing outside one."""
    activity = current_call.get()
    if activity is not None:
        activity.progress(message, progress, total)


def report_vote(vote: Vote) -> None:
    """Report a vote on the call being reviewed; does nothing outside one."""
    activity = current_call.get()
    if activity is not None:
        activity.vote(vote)


def emit_run_event(event: RunEvent) -> None:
    """Emit ``event`` in the current run (an MCP server state change); does nothing outside one."""
    emit = current_run_events.get()
    if emit is not None:
        emit(event)
