"""``quorum batch --engine temporal``: one workflow per task, spread over two worker processes."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time

from tests.e2e.conftest import Cli
from tests.integration.temporal.conftest import DevServer, Worker

TASKS = 50
PER_WORKER = 4
"""The conftest's workers run at most this many activities at once: more calls blocked at once means both work."""

HOLD = "echo started >> started.txt; while [ ! -f go ]; do sleep 0.05; done; echo held"
"""Each task's call: counts itself, then waits for the test's go file (so calls pile up on both workers)."""


def test_a_batch_of_50_tasks_runs_over_two_workers(tcli: Cli, temporal_server: DevServer) -> None:
    with (tcli.workspace / "quorum.toml").open("a") as toml:
        toml.write('\n[review]\nhil_mode = "auto_approve"\n')
    call = {"name": "run_command", "arguments": {"command": HOLD}, "id": "c1"}
    tcli.write("s.json", json.dumps({"conversation": "continue", "turns": [{"tool_calls": [call]}, {"text": "ok"}]}))
    tcli.write("tasks.jsonl", "".join(json.dumps({"task": f"task {n}", "id": n, "model": "scripted:s.json"}) + "\n"
                                      for n in range(TASKS)))  # fmt: skip
    workers = [Worker(tcli).start(), Worker(tcli).start()]
    batch = subprocess.Popen(
        [sys.executable, "-m", "quorum.cli.main", "batch", "tasks.jsonl", "--concurrency", str(TASKS), "--json"],
        cwd=tcli.workspace,
        env=tcli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        started = tcli.workspace / "started.txt"
        deadline = time.monotonic() + 120
        while not (started.exists() and len(started.read_text().splitlines()) > PER_WORKER):
            assert batch.poll() is None, batch.communicate()
            assert time.monotonic() < deadline, "the calls never piled up on both workers"
            time.sleep(0.1)  # waiting for the tools' own marker lines
        (tcli.workspace / "go").touch()
        out, err = batch.communicate(timeout=240)
    finally:
        if batch.poll() is None:
            batch.kill()
        for worker in workers:
            worker.stop()
    assert batch.returncode == 0, err
    lines = [json.loads(line) for line in out.splitlines()]
    tasks = [line for line in lines if line["type"] == "task"]
    assert len(tasks) == TASKS and {t["status"] for t in tasks} == {"end_turn"}
    assert len(started.read_text().splitlines()) == TASKS  # each call ran once
    run_ids = [t["run_id"] for t in tasks]
    assert len(set(run_ids)) == TASKS
    per_worker = _activities_per_worker(temporal_server, run_ids)
    for worker in workers:
        assert worker.process is not None and per_worker.get(worker.process.pid, 0) > 0, per_worker
    shown = tcli("logs", "show", run_ids[0])
    assert shown.code == 0 and "held" in shown.stdout


def _activities_per_worker(server: DevServer, run_ids: list[str]) -> dict[int, int]:
    """Activity attempts per worker process, from the workflows' histories (a worker's identity is pid@host)."""
    from temporalio.api.enums.v1 import EventType
    from temporalio.client import Client

    async def count() -> dict[int, int]:
        client = await Client.connect(server.address)
        counts: dict[int, int] = {}
        for run_id in run_ids:
            async for event in client.get_workflow_handle(run_id).fetch_history_events():
                if event.event_type == EventType.EVENT_TYPE_ACTIVITY_TASK_STARTED:
                    pid = int(event.activity_task_started_event_attributes.identity.partition("@")[0])
                    counts[pid] = counts.get(pid, 0) + 1
        return counts

    return asyncio.run(count())
