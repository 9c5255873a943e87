"""RunRecorder: the observer that writes a run's events to a run store as they happen.

Events are buffered and flushed in one transaction at the next turn of the event loop
(``loop.call_soon``), i.e. before the run awaits anything: whatever a run emitted before it waits
on a model, a tool or a reviewer is committed, so killing the process then loses nothing. A burst
of events emitted without yielding (a streamed chunk of text deltas, a turn's tool results) costs
one commit instead of one each, and the bursts of all the runs recording into one store on one
event loop share that commit (``group_commit.py``, decision 270). ``run_started`` and
``run_finished`` are written at once, since a process may exit right after the last event without
turning its loop again.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from datetime import UTC, datetime

from quorum.application.ports.run_store import RecordedEvent, RunHeader, RunStore
from quorum.domain.errors import UsageError
from quorum.domain.events import RunEvent, RunFinished, RunStarted
from quorum.infrastructure.storage.group_commit import GroupCommit, group_of
from quorum.infrastructure.storage.sql_store import EventBatch


class RunRecorder:
    """A ``RunObserver`` recording one run (and, reused, the runs after it) into ``store``.

    Never raises: the first failure of the store (disk full, log locked for longer than the busy
    timeout) stops recording for the rest of the run, is kept in ``error`` and passed to
    ``on_error`` (the CLI shows a warning); the run itself goes on.

    Args:
        store: where to write.
        workspace: the directory the run's tools act in, recorded with the run.
        config_digest: a digest of the effective configuration (never the configuration).
        parent_run_id: the run this one continues (``--continue`` / ``--resume``), or that
            delegated it (``subagent``).
        subagent: the subagent this run is a delegation of, if it is one.
        on_error: called once with the exception when recording fails.
        clock: wall-clock seconds, for event times.
    """

    def __init__(
        self,
        store: RunStore,
        *,
        workspace: str | None = None,
        config_digest: str | None = None,
        parent_run_id: str | None = None,
        subagent: str | None = None,
        on_error: Callable[[Exception], None] | None = None,
        clock: Callable[[], float] = time.time,
    ) -> None:
        self._store = store
        self._workspace = workspace
        self._config_digest = config_digest
        self._parent_run_id = parent_run_id
        self._subagent = subagent
        self._on_error = on_error
        self._clock = clock
        self._run_id: str | None = None
        self._seq = 0
        self._header: RunHeader | None = None  # the run's row, written with its first events
        self._buffer: list[RecordedEvent] = []
        self._open = False
        self.error: Exception | None = None

    @property
    def run_id(self) -> str | None:
        """The id of the run being (or last) recorded."""
        return self._run_id

    def on_event(self, event: RunEvent) -> None:
        if self.error is not None or self._child_of_open_run(event):
            return
        at = datetime.fromtimestamp(self._clock(), UTC)
        if isinstance(event, RunStarted) and event.resumed:
            self.flush()
            # The same run goes on (after awaiting approval): its events continue its sequence.
            self._run_id = event.run_id
            if not self._guard(self._continue_sequence, event.run_id):
                return
        elif isinstance(event, RunStarted):
            self.flush()  # the rest of a previous run, if any
            header = RunHeader(
                run_id=event.run_id,
                task=event.task,
                model=event.model,
                workspace=self._workspace,
                config_digest=self._config_digest,
                parent_run_id=self._parent_run_id,
                started_at=at,
                subagent=self._subagent,
            )
            self._run_id, self._seq, self._header = event.run_id, 0, header
        elif self._run_id is None:
            return  # not a run we saw start
        # Not validated again: the event is a validated RunEvent, seq and at are ours (validating
        # the event's whole model again cost the event loop's thread more than writing it).
        self._buffer.append(RecordedEvent.model_construct(seq=self._seq, at=at, event=event))
        self._seq += 1
        if isinstance(event, RunStarted | RunFinished):
            self.flush()
        else:
            self._schedule()

    def _child_of_open_run(self, event: RunEvent) -> bool:
        """An event of a child run (a delegation) passing through: its own recorder records it.

        A child's events carry its ``run_id``; its ``run_started`` is told apart from the start
        of a next run by arriving while this recorder's run is open.
        """
        if isinstance(event, RunStarted):
            opening = not self._open or event.run_id == self._run_id
            self._open = self._open or opening
            return not opening
        if event.run_id is not None and event.run_id != self._run_id:
            return True
        if isinstance(event, RunFinished):
            self._open = False
        return False

    def _continue_sequence(self, run_id: str) -> None:
        recorded = self._store.load_events(run_id)
        if not recorded:
            raise UsageError(f"cannot resume run {run_id!r}: the run log has no events of it")
        self._seq = recorded[-1].seq + 1

    @property
    def pending(self) -> int:
        """Events buffered, not yet written."""
        return len(self._buffer)

    def flush(self) -> None:
        """Write what is buffered now (idempotent; also what ``close`` does).

        Inside an event loop, the other runs' buffered events on this store are written with it.
        """
        if self._header is None and not self._buffer:
            return
        group = self._group()
        if group is None:
            batch = self.take()
            if batch is not None:
                self.write_alone(batch)
            return
        group.enlist(self)
        group.flush()

    close = flush

    def take(self) -> EventBatch | None:
        """Hand the buffered header and events over to be written (None: nothing to write)."""
        header, events, self._header, self._buffer = self._header, self._buffer, None, []
        if self._run_id is None or self.error is not None or (header is None and not events):
            return None
        return header, self._run_id, events

    def write_alone(self, batch: EventBatch) -> None:
        """Write ``batch`` by itself (its own transactions), stopping recording if that fails."""
        header, run_id, events = batch
        if header is not None and not self._guard(self._store.start_run, header):
            return
        if events:
            self._guard(self._store.append_events, run_id, events)

    def _schedule(self) -> None:
        group = self._group()
        if group is None:  # no loop (a synchronous caller): nothing to wait for
            self.flush()
        else:
            group.enlist(self)

    def _group(self) -> GroupCommit | None:
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return None
        return group_of(self._store, loop)

    def _guard(self, write: Callable[..., None], *args: object) -> bool:
        try:
            write(*args)
        except Exception as error:  # the observer contract: never raise into the run
            self.error = error
            self._buffer.clear()
            self._header = None
            if self._on_error is not None:
                self._on_error(error)
            return False
        return True
