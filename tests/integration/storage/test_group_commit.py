"""The run log's group commit (decision 270): concurrent runs share transactions, and lose nothing to a SIGKILL."""

from __future__ import annotations

import asyncio
import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

from quorum.domain.events import RunStarted, TextDelta, TurnStarted
from quorum.infrastructure.storage.group_commit import MAX_PENDING_EVENTS
from quorum.infrastructure.storage.recorder import RunRecorder
from tests.integration.storage.conftest import Backend
from tests.integration.storage.test_crash_and_concurrency import ROOT, wait_for_file
from tests.integration.storage.test_recorder import committed

RUNS = 200


class CountingWrites:
    """A real store counting its write transactions (each method below is one)."""

    def __init__(self, store: Any) -> None:
        self.store, self.transactions = store, 0

    def start_run(self, header: Any) -> None:
        self.transactions += 1
        self.store.start_run(header)

    def append_events(self, run_id: str, events: Any) -> None:
        self.transactions += 1
        self.store.append_events(run_id, events)

    def append_event_batches(self, batches: Any) -> None:
        self.transactions += 1
        self.store.append_event_batches(batches)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.store, name)


async def test_the_bursts_of_concurrent_runs_share_one_commit_before_the_loop_waits(
    store: Any, backend: Backend
) -> None:
    counting = CountingWrites(store)
    recorders = [RunRecorder(counting) for _ in range(20)]
    for index, recorder in enumerate(recorders):
        recorder.on_event(RunStarted(run_id=f"r{index}", model="m:x", task="t"))  # written at once, each
    before = counting.transactions
    for recorder in recorders:
        recorder.on_event(TurnStarted(turn=1))
        recorder.on_event(TextDelta(text="a"))
    assert committed(backend, "r7") == ["run_started"]  # buffered while the runs are busy...
    await asyncio.sleep(0)  # ...and written, all twenty, as soon as the loop turns
    assert counting.transactions == before + 1
    assert all(committed(backend, f"r{i}") == ["run_started", "turn_started", "text"] for i in range(20))


async def test_a_full_buffer_is_written_by_the_run_that_fills_it(store: Any, backend: Backend) -> None:
    recorder = RunRecorder(store)
    recorder.on_event(RunStarted(run_id="r", model="m:x", task="t"))
    for _ in range(MAX_PENDING_EVENTS):
        recorder.on_event(TextDelta(text="x"))
    assert len(committed(backend, "r")) == 1 + MAX_PENDING_EVENTS  # back-pressure: no loop turn needed


def test_a_sigkill_during_200_concurrent_runs_loses_no_event_emitted_before_a_run_waited(
    backend: Backend, tmp_path: Path
) -> None:
    log = backend.where
    if backend.name == "sqlite":
        Path(log).parent.mkdir(parents=True)
    marker = tmp_path / "all-in-tool"
    child = subprocess.Popen(
        [sys.executable, "-m", "tests.integration.storage.concurrent_runs", log, str(marker), "--runs", str(RUNS)],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    wait_for_file(marker, child, limit=300)  # every run is inside its blocking tool
    os.kill(child.pid, signal.SIGKILL)
    child.communicate()
    assert child.returncode == -signal.SIGKILL

    if backend.name == "sqlite":
        with sqlite3.connect(log) as raw:  # the file opens clean
            assert raw.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    store = backend.open()
    runs = store.list_runs(limit=RUNS + 10)
    assert len(runs) == RUNS
    assert {(r.status, r.turns, r.tool_calls) for r in runs} == {("interrupted", 2, 3)}
    for index in range(RUNS):
        events = [e.event for e in store.load_events(f"run-{index}")]
        types = [e.type for e in events]
        assert types[:2] == ["run_started", "turn_started"] and types.count("tool_result") == 2
        assert types[-2:] == ["turn_started", "tool_call"] and events[-1].name == "block"  # type: ignore[union-attr]
        said = "".join(e.text for e in events if isinstance(e, TextDelta))
        assert said == f"run {index} turn one"
