"""The workflow's run observer: events numbered in the workflow, appended to the run log by an activity."""

from __future__ import annotations

import asyncio

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from quorum.application.ports.run_store import RecordedEvent
    from quorum.domain.events import ApprovalRequested, RunEvent, RunStarted, ToolResultEvent
    from quorum.infrastructure.engines.temporal.messages import RecordBatch, RunSpec
    from quorum.infrastructure.engines.temporal.policies import QUICK, RETRY


class WorkflowRecorder:
    """A ``RunObserver`` numbering the run's events and appending them to the run log in order.

    Events are buffered and written by one pump at a time (one local activity per batch: it runs
    on the worker holding the workflow, with no round trip through the server, and is safe to
    repeat after a crash since ``quorum.record`` skips sequence numbers already stored), so the
    log keeps their order. ``drain`` waits until everything emitted so far is recorded: the model
    request activity reads the conversation from the log, so it must follow its events.

    With ``rides_along`` (runs started since decision 274) the model request carries the events
    not yet recorded instead (``take``): the model activity appends them before it reads the log,
    which saves a local activity a turn. So a tool's result is not written on its own: it waits
    for the next event that is (or the next request, or ``drain``). Events taken and not known
    recorded are given back.
    """

    def __init__(self, spec: RunSpec, *, rides_along: bool = False) -> None:
        self._spec = spec
        self.rides_along = rides_along
        self._buffer: list[RecordedEvent] = []
        self._seq = 0
        self.recorded_seq = -1
        self._busy = False  # a pump is scheduled or writing
        self._writing = False  # a batch is on its way to the log
        self._header_sent = False
        self.waiting: list[str] = []
        self.finished = False

    @property
    def last_seq(self) -> int:
        return self._seq - 1

    def on_event(self, event: RunEvent) -> None:
        if isinstance(event, RunStarted):
            self.waiting = []
        elif isinstance(event, ApprovalRequested):
            self.waiting.append(event.call_id)
        self._buffer.append(RecordedEvent(seq=self._seq, at=workflow.now(), event=event))
        self._seq += 1
        if not (self.rides_along and isinstance(event, ToolResultEvent)):
            self._kick()

    def _kick(self) -> None:
        """Start a pump unless one runs (a tool's result may wait: the next model request carries it)."""
        if not self._busy:
            self._busy = True
            asyncio.get_running_loop().create_task(self._pump())

    def _batch(self) -> RecordBatch:
        events, self._buffer = tuple(self._buffer), []
        header = not self._header_sent
        return RecordBatch(
            run_id=self._spec.run_id,
            workspace=self._spec.workspace,
            header_task=self._spec.task if header else None,
            header_model=self._spec.model_id if header else None,
            parent_run_id=self._spec.parent_run_id,
            events=events,
        )

    async def _pump(self) -> None:
        try:
            while self._buffer:
                batch = self._batch()
                self._writing = True
                try:
                    await workflow.execute_local_activity(
                        "quorum.record", batch, start_to_close_timeout=QUICK, retry_policy=RETRY
                    )
                finally:
                    self._writing = False
                self.recorded(batch)
        finally:
            self._busy = False

    async def take(self) -> RecordBatch | None:
        """The events not yet recorded, for an activity to append (None: all are recorded).

        Waits for a write in flight first, so the batch follows what is in the log; a pump that
        has not started yet finds nothing left to write. The caller reports the batch
        ``recorded`` or gives it ``back``.
        """
        if self._writing:
            await workflow.wait_condition(lambda: not self._writing)
        return self._batch() if self._buffer else None

    def recorded(self, batch: RecordBatch) -> None:
        """``batch`` is in the run log."""
        self._header_sent = True
        self.recorded_seq = batch.events[-1].seq

    def back(self, batch: RecordBatch) -> None:
        """``batch`` may not be in the run log: it is written again (``quorum.record`` skips what is)."""
        self._buffer = [*batch.events, *self._buffer]
        self._kick()

    async def drain(self) -> None:
        """Wait until every event emitted so far is in the run log."""
        if self._buffer:
            self._kick()
        await workflow.wait_condition(lambda: not self._buffer and not self._busy)
