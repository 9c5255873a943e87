"""Port to the run log: where every run's events are recorded as they happen, and read back.

The write side is driven by a recorder observing a run (one ``start_run``, then ``append_events``
batches); the read side serves ``quorum logs``, ``quorum stats`` and continuing a run. Read models
are frozen pydantic models so the CLI can print them or dump them as JSON.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict, Field

from quorum.domain.events import RunEvent
from quorum.domain.messages import Message
from quorum.domain.responses import RunUsage

INTERRUPTED = "interrupted"
"""The status of a run whose ``run_finished`` was never recorded (killed, crashed, or still going)."""


class _ReadModel(BaseModel):
    model_config = ConfigDict(frozen=True)


class RunHeader(_ReadModel):
    """What is known of a run when it starts.

    Attributes:
        run_id: the run's id (``RunStarted.run_id``).
        task: the user's task text.
        model: the model id, ``provider:model``.
        workspace: the directory tools acted in, if any.
        config_digest: a digest of the effective configuration (never the configuration itself).
        parent_run_id: the run this one continues (``--continue`` / ``--resume``), or, for a
            delegation (``subagent`` set), the run that delegated it; None for neither.
        started_at: when the run started (timezone-aware).
        engine: where the run lives: ``local`` (a process) or ``temporal`` (a workflow whose id
            is the run id); ``approve``/``reject`` send a decision there.
        subagent: the subagent a delegation ran (a child run of ``parent_run_id``); None for a
            run of its own.
    """

    run_id: str
    task: str
    model: str
    workspace: str | None = None
    config_digest: str | None = None
    parent_run_id: str | None = None
    started_at: datetime
    engine: str = "local"
    subagent: str | None = None


class RecordedEvent(_ReadModel):
    """One run event as stored: its position in the run, when it was observed, and the event."""

    seq: int
    at: datetime
    event: RunEvent = Field(discriminator="type")


class RunSummary(RunHeader):
    """A run as listed: the header plus how (and whether) it ended.

    ``status`` is the stop reason of ``run_finished``, or ``interrupted`` when there was none.
    ``usage`` and ``cost`` (USD, None when unknown) are those of ``run_finished``, reviewers included.
    """

    ended_at: datetime | None = None
    status: str = INTERRUPTED
    detail: str | None = None
    output: str = ""
    turns: int = 0
    tool_calls: int = 0
    usage: RunUsage = RunUsage()
    cost: float | None = None

    @property
    def interrupted(self) -> bool:
        return self.status == INTERRUPTED


class SearchHit(_ReadModel):
    """A place where searched text occurs.

    ``where`` says in what (``task``, ``text``, ``tool_call``, ``tool_result``, ``review``,
    ``output``); ``turn`` which turn, if any; ``excerpt`` the text around the match.
    """

    run_id: str
    started_at: datetime
    where: Literal["task", "text", "tool_call", "tool_result", "review", "output"]
    turn: int | None = None
    excerpt: str


class ToolStats(_ReadModel):
    """Calls to one tool: how many, how many failed (errors and rejections), median duration."""

    name: str
    calls: int
    errors: int
    rejected: int
    error_rate: float
    median_duration_ms: float | None = None


class ReviewerStats(_ReadModel):
    """Votes of one reviewer: how many, how many approved, rejected or failed, and the approval rate."""

    reviewer: str
    votes: int
    approvals: int
    rejections: int
    errors: int
    approval_rate: float
    median_latency_ms: float | None = None


class StoreStats(_ReadModel):
    """Totals over the whole log (``quorum stats``).

    ``cost`` sums the runs whose cost is known (None when none is); ``unpriced_runs`` counts the
    finished runs whose cost is unknown.
    """

    runs: int = 0
    runs_by_status: dict[str, int] = Field(default_factory=dict)
    turns: int = 0
    tool_calls: int = 0
    usage: RunUsage = RunUsage()
    cost: float | None = None
    unpriced_runs: int = 0
    tools: tuple[ToolStats, ...] = ()
    reviewers: tuple[ReviewerStats, ...] = ()
    decisions_by: dict[str, int] = Field(default_factory=dict)


class RunStore(Protocol):
    """A run log. Synchronous and quick: the recorder calls it on the run's event loop.

    Every method may raise ``ConfigurationError`` when the log cannot be opened (bad path, not a
    database, written by a newer Quorum). Opening is lazy: constructing a store touches nothing.
    Several processes may write the same log at once.
    """

    def start_run(self, header: RunHeader) -> None:
        """Record a new run (committed before returning). Raises UsageError if the id exists."""
        ...

    def append_events(self, run_id: str, events: Sequence[RecordedEvent]) -> None:
        """Record events of a started run in one transaction, committed before returning.

        ``seq`` values continue the run's sequence. A ``run_finished`` among them completes the run.
        """
        ...

    def list_runs(
        self,
        limit: int = 20,
        *,
        model: str | None = None,
        since: datetime | None = None,
        text: str | None = None,
    ) -> list[RunSummary]:
        """The ``limit`` most recently started runs, newest first.

        Args:
            limit: how many runs at most.
            model: only runs whose model id contains this (case-insensitive for ASCII).
            since: only runs started at or after this moment.
            text: only runs whose task, answer or any event contains this.
        """
        ...

    def match_run_ids(self, prefix: str, limit: int = 10) -> list[str]:
        """Ids of runs starting with ``prefix`` (at most ``limit``), newest first."""
        ...

    def delete_runs(self, run_ids: Sequence[str]) -> int:
        """Delete these runs and their events in one transaction; returns how many existed.

        Runs that continued a deleted run keep their own history (their link is cleared).
        """
        ...

    def get_run(self, run_id: str) -> RunSummary | None:
        """One run, or None if no run has that id."""
        ...

    def last_run_id(self) -> str | None:
        """The id of the most recently started run, or None when the log is empty."""
        ...

    def load_events(self, run_id: str, *, after: int | None = None) -> list[RecordedEvent]:
        """The recorded events of the run in order, or those numbered above ``after`` (empty for an unknown run).

        ``after`` lets a follower read only what is new, instead of the whole run on every change.
        """
        ...

    def load_history(self, run_id: str) -> list[Message]:
        """The conversation to continue the run with, provider-neutral.

        Includes the history of the runs it continued. Calls left without a result get an
        ``interrupted`` error result, so the history is valid for any provider's API.

        Raises:
            UsageError: no run has that id.
        """
        ...

    def search(self, text: str, limit: int = 50) -> list[SearchHit]:
        """Where ``text`` occurs (case-insensitive for ASCII), newest runs first."""
        ...

    def stats(self) -> StoreStats:
        """Totals over every recorded run."""
        ...

    def close(self) -> None:
        """Release the connection. Idempotent; the store reopens on next use."""
        ...
