"""RunRecorder: when events reach the file, and what happens when the store fails."""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from typing import Any

from quorum.application.execution import RunRequest
from quorum.application.ports.run_store import RecordedEvent, RunHeader
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.errors import RunFailure
from quorum.domain.events import RunStarted, TextDelta, TurnStarted
from quorum.infrastructure.storage.recorder import RunRecorder
from tests.fakes import (
    FakeGateway,
    FakeTools,
    JsonSchema,
    RecordingObserver,
    ScriptedReviewer,
    ScriptedSession,
    calls,
    text,
)
from tests.integration.storage.conftest import Backend, Tee


def committed(backend: Backend, run_id: str) -> list[str]:
    """Event types another connection sees (what a crash would leave)."""
    reader = backend.open()
    try:
        return [e.event.type for e in reader.load_events(run_id)]
    finally:
        reader.close()


async def test_events_are_committed_before_the_run_next_waits(store: Any, backend: Backend) -> None:
    recorder = RunRecorder(store)
    recorder.on_event(RunStarted(run_id="r", model="m:x", task="t"))
    assert committed(backend, "r") == ["run_started"]  # written at once
    recorder.on_event(TurnStarted(turn=1))
    recorder.on_event(TextDelta(text="a"))
    recorder.on_event(TextDelta(text="b"))
    assert committed(backend, "r") == ["run_started"]  # a burst is buffered while the run is busy...
    await asyncio.sleep(0)  # ...and written as soon as it yields to the event loop
    assert committed(backend, "r") == ["run_started", "turn_started", "text", "text"]


def test_without_an_event_loop_each_event_is_written_at_once(store: Any, backend: Backend) -> None:
    recorder = RunRecorder(store)
    recorder.on_event(RunStarted(run_id="r", model="m:x", task="t"))
    recorder.on_event(TurnStarted(turn=1))
    assert committed(backend, "r") == ["run_started", "turn_started"]


class FailingAfter:
    """A real store whose append fails from the ``n``-th call on (a full disk, a lock held too long)."""

    def __init__(self, store: Any, n: int) -> None:
        self.store, self.n, self.calls = store, n, 0

    def start_run(self, header: RunHeader) -> None:
        self.store.start_run(header)

    def append_events(self, run_id: str, events: Sequence[RecordedEvent]) -> None:
        self.calls += 1
        if self.calls >= self.n:
            raise RunFailure("run log: database or disk is full")
        self.store.append_events(run_id, events)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def test_a_failing_store_stops_recording_but_never_the_run(store: Any) -> None:
    failing = FailingAfter(store, n=3)
    errors: list[Exception] = []
    recorder = RunRecorder(failing, on_error=errors.append)  # type: ignore[arg-type]
    seen = RecordingObserver()
    tools = FakeTools()
    tools.add("read", lambda _: asyncio.sleep(0, "ok"))
    agent = RunAgent(
        gateway=FakeGateway(ScriptedSession([calls(("read", {})), calls(("read", {})), text("done")])),
        executor=tools,
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=Tee([recorder, seen]),
    )
    result = await agent.execute(RunRequest(task="t", model_id="m:x", run_id="r"))
    assert result.stop_reason == "end_turn" and result.output == "done"
    assert [type(e) for e in errors] == [RunFailure]  # reported once
    assert recorder.error is errors[0]
    kept = [e.event for e in store.load_events("r")]
    assert len(kept) > 2 and kept == seen.events[: len(kept)]  # a clean prefix, nothing after the failure
    assert store.get_run("r").status == "interrupted"  # type: ignore[union-attr]
