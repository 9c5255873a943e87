"""Crash safety (a SIGKILLed run) and concurrent writers, with real processes on a real SQLite file."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from datetime import UTC, datetime
from pathlib import Path

import pytest

from quorum.application.history import INTERRUPTED_RESULT, join_histories, unanswered_calls
from quorum.application.ports.run_store import RecordedEvent, RunHeader
from quorum.domain.events import RunFinished, RunStopReason, TextDelta, TurnStarted
from quorum.domain.responses import Usage
from quorum.domain.tools import ToolResult
from quorum.infrastructure.storage.sqlite_store import SqliteRunStore
from tests.fakes import text
from tests.integration.storage.conftest import Backend, RecordedRun
from tests.integration.storage.scripted_run import marker

ROOT = Path(__file__).resolve().parents[3]


def start(db: Path, name: str, *args: str) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [sys.executable, "-m", "tests.integration.storage.scripted_run", str(db), name, *args],
        cwd=ROOT,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )


def wait_for_file(path: Path, process: subprocess.Popen[bytes], limit: float = 60.0) -> None:
    """Wait until the child creates ``path`` (fails fast if the child dies first)."""
    deadline = time.monotonic() + limit
    while not path.exists():
        if process.poll() is not None:
            _, err = process.communicate()
            pytest.fail(f"child exited with {process.returncode}: {err.decode()}")
        if time.monotonic() > deadline:
            process.kill()
            process.communicate()
            pytest.fail(f"child never created {path.name}")
        time.sleep(0.01)


async def test_a_sigkilled_run_is_readable_up_to_its_last_event_and_can_be_resumed(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    child = start(db_path, "victim", "--block")
    wait_for_file(marker(db_path, "victim"), child)  # the tool of turn 2 is running
    os.kill(child.pid, signal.SIGKILL)
    child.communicate()
    assert child.returncode == -signal.SIGKILL

    store = SqliteRunStore(db_path)
    run = store.get_run("victim-0")
    assert run is not None and run.interrupted and run.status == "interrupted"
    assert run.ended_at is None and run.turns == 2 and run.tool_calls == 3
    events = [e.event for e in store.load_events("victim-0")]
    types = [e.type for e in events]
    runs_of_text_collapsed = [t for i, t in enumerate(types) if not (t == "text" and types[i - 1] == "text")]
    assert runs_of_text_collapsed == [
        "run_started",
        "turn_started",
        "text",
        "tool_call",
        "tool_call",
        "tool_result",
        "tool_result",
        "turn_finished",
        "turn_started",
        "text",
        "tool_call",
    ]
    assert events[-1].type == "tool_call" and events[-1].name == "rendezvous"  # the last event emitted
    said = "".join(e.text for e in events if isinstance(e, TextDelta))
    assert said == "victim turn onevictim now waiting"

    history = store.load_history("victim-0")
    assert unanswered_calls(history) == []
    assert history[-1].content == (
        # the fake model numbered this turn's call c1 again: recorded under a fresh id
        ToolResult(call_id="c1_2", name="rendezvous", output=INTERRUPTED_RESULT, is_error=True),
    )

    resumed = RecordedRun(store)
    resumed.session.script = [text("picked up where it stopped")]
    result = await resumed.run("carry on", run_id="resumed", history=tuple(history), parent_run_id="victim-0")
    assert result.stop_reason == "end_turn"
    assert resumed.session.history()[: len(history)] == history
    # The same conversation, with the interrupted results and the new task in one user message.
    assert store.load_history("resumed") == join_histories([resumed.session.history()])
    assert [r.status for r in store.list_runs()] == ["end_turn", "interrupted"]
    store.close()


def test_two_processes_record_runs_into_one_log_at_the_same_time(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    a = start(db_path, "a", "--runs", "15", "--meet", "b")
    b = start(db_path, "b", "--runs", "15", "--meet", "a")
    for child in (a, b):
        _, err = child.communicate(timeout=120)
        assert child.returncode == 0, err.decode()

    store = SqliteRunStore(db_path)
    runs = store.list_runs(limit=100)
    assert len(runs) == 30
    assert {r.status for r in runs} == {"end_turn"}
    for run in runs:
        events = store.load_events(run.run_id)
        assert [e.seq for e in events] == list(range(len(events)))
        assert events[-1].event.type == "run_finished"
        assert run.tool_calls == 3 and run.turns == 3
    # Both first runs were in their tool at once (the rendezvous), so each was open while the
    # other was being written.
    first_a, first_b = store.get_run("a-0"), store.get_run("b-0")
    assert first_a is not None and first_b is not None
    assert first_a.started_at < first_b.ended_at and first_b.started_at < first_a.ended_at  # type: ignore[operator]
    assert store.stats().tool_calls == 90
    store.close()


def test_threads_with_their_own_stores_write_concurrently(backend: Backend) -> None:
    writers, runs_each = 4, 25
    barrier = threading.Barrier(writers)
    failures: list[BaseException] = []

    def write(name: str) -> None:
        store = backend.open()
        try:
            barrier.wait(timeout=30)
            for n in range(runs_each):
                run_id = f"{name}-{n}"
                now = datetime.now(UTC)
                store.start_run(RunHeader(run_id=run_id, task="t", model="m:x", started_at=now))
                events = [TurnStarted(turn=1), TextDelta(text="hello "), TextDelta(text=name)]
                finished = RunFinished(
                    stop_reason=RunStopReason.END_TURN, turns=1, output=name, usage=Usage(input_tokens=1)
                )
                for seq, event in enumerate([*events, finished], start=1):
                    store.append_events(run_id, [RecordedEvent(seq=seq, at=now, event=event)])
        except BaseException as error:
            failures.append(error)
        finally:
            store.close()

    threads = [threading.Thread(target=write, args=(f"w{i}",)) for i in range(writers)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert failures == []
    store = backend.open()
    stats = store.stats()
    assert (stats.runs, stats.runs_by_status, stats.usage.input_tokens) == (100, {"end_turn": 100}, 100)
    assert len(store.search("hello w3")) == runs_each
    store.close()
