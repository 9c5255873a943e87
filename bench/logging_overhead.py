"""Run-log overhead (issue 7): RunAgent with vs without the RunRecorder writing to SQLite.

A scripted fake session and instant fake tools, so the difference between the two runs is the
recorder's work: building records, serialising events, one SQLite transaction per burst of events
(WAL, synchronous=NORMAL, a real file in a temp dir). Each turn: the model's text, two tool calls,
two results, turn start/end — 7 events per turn non-streaming; streaming adds a text delta per 3
characters. Also the cost of one event written on its own (no event loop: one commit each).

    python bench/logging_overhead.py [--turns 500] [--repeats 8]

Target: < 0.5 ms per turn.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.ports.run_store import RunHeader
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.events import TextDelta
from quorum.domain.tools import ToolParameter
from quorum.infrastructure.storage.recorder import RunRecorder
from quorum.infrastructure.storage.sqlite_store import SqliteRunStore
from tests.fakes import FakeGateway, FakeTools, JsonSchema, ScriptedReviewer, ScriptedSession, calls, text

SAY = "Reading both files to compare them."  # 36 characters: 12 streamed deltas


class Counter:
    def __init__(self) -> None:
        self.events = 0

    def on_event(self, _: Any) -> None:
        self.events += 1


class Both:
    def __init__(self, *observers: Any) -> None:
        self.observers = observers

    def on_event(self, event: Any) -> None:
        for observer in self.observers:
            observer.on_event(event)


async def instant(_: dict[str, Any]) -> str:
    return "contents of the file"


async def one_run(turns: int, stream: bool, store: SqliteRunStore | None, run_id: str) -> tuple[float, float, int]:
    """(wall s, CPU s, events) of a run of ``turns`` tool turns, recorded to ``store`` if given."""
    script = [calls(("read", {"path": "a.txt"}), ("read", {"path": "b.txt"}), say=SAY) for _ in range(turns)]
    tools = FakeTools()
    tools.add("read", instant, params=[ToolParameter(name="path", param_type="path")])
    counter = Counter()
    observer: Any = counter if store is None else Both(counter, RunRecorder(store, workspace="/ws"))
    agent = RunAgent(
        gateway=FakeGateway(ScriptedSession([*script, text("done")])),
        executor=tools,
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=observer,
    )
    params = ExecutionParams(max_tool_turns=turns + 1, stream=stream, timeout_seconds=3600)
    start, cpu = time.perf_counter(), time.process_time()
    result = await agent.execute(RunRequest(task="bench", model_id="fake:m", params=params, run_id=run_id))
    elapsed, cpu = time.perf_counter() - start, time.process_time() - cpu
    assert result.stop_reason == "end_turn" and result.turns == turns + 1
    return elapsed, cpu, counter.events


def single_event_cost(store: SqliteRunStore, n: int) -> float:
    """Seconds per event when each event is its own transaction (no loop to batch on)."""
    store.start_run(RunHeader(run_id="single", task="t", model="m:x", started_at=datetime.now(UTC)))
    recorder = RunRecorder(store)
    recorder._run_id = "single"  # a run already started; benchmark the append path only
    event = TextDelta(text="abc")
    start = time.perf_counter()
    for _ in range(n):
        recorder.on_event(event)
    return (time.perf_counter() - start) / n


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=8)
    args = parser.parse_args()
    n = args.turns
    with tempfile.TemporaryDirectory() as folder:
        store = SqliteRunStore(Path(folder) / "runs.db")
        asyncio.run(one_run(20, True, store, "warm-up"))
        for stream in (False, True):
            without, with_log, events = [], [], 0
            for i in range(args.repeats):  # interleaved, so drift in machine load hits both alike
                *measured, events = asyncio.run(one_run(n, stream, None, f"x{i}"))
                without.append(measured)
                with_log.append(asyncio.run(one_run(n, stream, store, f"{stream}-{i}"))[:2])
            mode = "streaming" if stream else "non-streaming"
            print(f"{mode} ({events / (n + 1):.1f} events per turn, mean of {args.repeats} runs of {n} turns):")
            # Means, not medians: the runs that pay for a WAL checkpoint count too. CPU time is
            # also shown because wall time on a shared machine moves with everyone else's load.
            for label, column in (("wall", 0), ("CPU", 1)):
                base = sum(m[column] for m in without) / args.repeats
                logged = sum(m[column] for m in with_log) / args.repeats
                extra = logged - base
                print(
                    f"  {label:>4}: {base / n * 1e3:.3f} ms/turn without the log, {logged / n * 1e3:.3f} with"
                    f" · overhead {extra / n * 1e3:.3f} ms per turn, {extra / events * 1e6:.1f} µs per event"
                )
        events_in_log = store._connect().execute("SELECT COUNT(*) FROM events").fetchone()[0]
        for label, query in (("stats", store.stats), ("search", lambda: store.search("compare them"))):
            start = time.perf_counter()
            query()
            print(f"{label} over {events_in_log:,} events: {(time.perf_counter() - start) * 1e3:.0f} ms")
        per_event = single_event_cost(store, 2000)
        print(f"one event written alone (its own commit): {per_event * 1e6:.1f} µs")
        size = sum(p.stat().st_size for p in Path(folder).iterdir())
        print(f"log size after the benchmark: {size / 1e6:.1f} MB")
        store.close()


if __name__ == "__main__":
    main()
