"""A child process recording scripted runs into a run log (for the crash and concurrency tests).

``python -m tests.integration.storage.scripted_run DB NAME [--runs N] [--meet OTHER] [--block]``

Each run: turn 1 calls the low-risk tool ``quick`` twice; turn 2 says something and calls ``rendezvous``;
turn 3 answers. ``rendezvous`` creates ``DB.NAME.in-tool`` and then, with ``--meet OTHER``, waits for
``DB.OTHER.in-tool`` (so two processes are provably mid-run together); with ``--block`` it never
returns (the parent kills the process). Coordination is through files only.
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.infrastructure.storage.recorder import RunRecorder
from quorum.infrastructure.storage.sqlite_store import SqliteRunStore
from tests.fakes import FakeGateway, FakeTools, JsonSchema, ScriptedReviewer, ScriptedSession, calls, text


def marker(db: Path, name: str) -> Path:
    return db.with_name(f"{db.name}.{name}.in-tool")


async def wait_for(path: Path) -> None:
    while not path.exists():  # the other process creates it; polling a file is the only channel
        await asyncio.sleep(0.005)


async def main(db: Path, name: str, runs: int, meet: str | None, block: bool) -> None:
    store = SqliteRunStore(db)

    async def quick(args: dict[str, Any]) -> str:
        return f"quick {args.get('n')}"

    async def rendezvous(_: dict[str, Any]) -> str:
        marker(db, name).touch()
        if block:
            await asyncio.Event().wait()
        if meet is not None:
            await wait_for(marker(db, meet))
        return "met"

    for index in range(runs):
        tools = FakeTools()
        tools.add("quick", quick)
        tools.add("rendezvous", rendezvous)
        session = ScriptedSession(
            [
                calls(("quick", {"n": 1}), ("quick", {"n": 2}), say=f"{name} turn one"),
                calls(("rendezvous", {}), say=f"{name} now waiting"),
                text(f"{name} finished run {index}"),
            ]
        )
        recorder = RunRecorder(store, workspace=str(db.parent))
        agent = RunAgent(
            gateway=FakeGateway(session),
            executor=tools,
            schema=JsonSchema(),
            reviewer=ScriptedReviewer(),
            observer=recorder,
        )
        await agent.execute(
            RunRequest(task=f"{name} task {index}", model_id="scripted:x", run_id=f"{name}-{index}",
                       params=ExecutionParams(stream=True))
        )  # fmt: skip
        if recorder.error is not None:
            raise SystemExit(f"recording failed: {recorder.error}")
        meet = None  # only the first run meets the other process
    store.close()


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("db", type=Path)
    parser.add_argument("name")
    parser.add_argument("--runs", type=int, default=1)
    parser.add_argument("--meet")
    parser.add_argument("--block", action="store_true")
    args = parser.parse_args()
    asyncio.run(main(args.db, args.name, args.runs, args.meet, args.block))
