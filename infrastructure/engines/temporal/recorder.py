"""The workflow's run observer: events numbered in the workflow, appended to the run log by an activity."""

from __future__ import annotations

import asyncio

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from quorum.application.ports.run_store import RecordedEvent
    from quorum.domain.events import ApprovalRequested, RunEvent, RunStarted
    from quorum.infrastructure.engines.temporal.messages import RecordBatch, RunSpec
    from quorum.infrastructure.engines.temporal.policies import QUICK, RETRY


class WorkflowRecorder:
    """A ``RunObserver`` numbering the run's events and appending them to the run log in order.

    Events are buffered and written by one pump at a time (one local activity per batch: it runs
    on the worker holding the workflow, with no round trip through the server, and is safe to
    repeat after a crash since ``quorum.record`` skips sequence numbers already stored), so the
    log keeps their order. ``drain`` waits until everything emitted so far is recorded: the model
    request activity reads the conversation from the log, so it must follow its events.
    """

    def __init__(self, spec: RunSpec) -> None:
        self._spec = spec
        self._buffer: list[RecordedEvent] = []
        self._seq = 0
        self.recorded_seq = -1
        self._busy = False
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
        if not self._busy:
            self._busy = True
            asyncio.get_running_loop().create_task(self._pump())

    async def _pump(self) -> None:
        try:
            while self._buffer:
                batch, self._buffer = tuple(self._buffer), []
                header = not self._header_sent
                await workflow.execute_local_activity(
                    "quorum.record",
                    RecordBatch(
                        run_id=self._spec.run_id,
                        workspace=self._spec.workspace,
                        header_task=self._spec.task if header else None,
                        header_model=self._spec.model_id if header else None,
                        parent_run_id=self._spec.parent_run_id,
                        events=batch,
                    ),
                    start_to_close_timeout=QUICK,
                    retry_policy=RETRY,
                )
                self._header_sent = True
                self.recorded_seq = batch[-1].seq
        finally:
            self._busy = False

    async def drain(self) -> None:
        """Wait until every event emitted so far is in the run log."""
        await workflow.wait_condition(lambda: not self._buffer and not self._busy)
