"""A child process recording many concurrent scripted runs into one run log, then blocking (for a SIGKILL).

``python -m tests.integration.storage.concurrent_runs LOG MARKER [--runs N]``

``LOG`` is a SQLite file or a ``postgresql://`` URL. ``N`` runs start at once on one event loop and
one store (``asyncio.gather``), each: turn 1 calls the low-risk tool ``quick`` twice and says
something; turn 2 calls ``block``, which never returns. When every run is inside ``block``, the
last one to arrive creates ``MARKER`` (the parent then kills the process).
"""

from __future__ import annotations

import argparse
import asyncio
from pathlib import Path
from typing import Any

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.infrastructure.storage.recorder import RunRecorder
from tests.fakes import FakeGateway, FakeTools, JsonSchema, ScriptedReviewer, ScriptedSession, calls


def open_store(log: str) -> Any:
    if log.startswith("postgresql://"):
        from quorum.infrastructure.storage.postgres_store import PostgresRunStore

        return PostgresRunStore(log)
    from quorum.infrastructure.storage.sqlite_store import SqliteRunStore

    return SqliteRunStore(Path(log))


async def main(log: str, marker: Path, runs: int) -> None:
    store = open_store(log)
    arrived = [0]

    async def quick(args: dict[str, Any]) -> str:
        return f"quick {args.get('n')}"

    async def block(_: dict[str, Any]) -> str:
        arrived[0] += 1
        if arrived[0] == runs:
            marker.touch()
        await asyncio.Event().wait()
        return "never"

    async def one(index: int) -> None:
        tools = FakeTools()
        tools.add("quick", quick)
        tools.add("block", block)
        session = ScriptedSession(
            [calls(("quick", {"n": 1}), ("quick", {"n": 2}), say=f"run {index} turn one"), calls(("block", {}))]
        )
        agent = RunAgent(
            gateway=FakeGateway(session),
            executor=tools,
            schema=JsonSchema(),
            reviewer=ScriptedReviewer(),
            observer=RunRecorder(store),
        )
        request = RunRequest(
            task=f"task {index}", model_id="scripted:x", run_id=f"run-{index}", params=ExecutionParams(stream=True)
        )
        await agent.execute(request)

    await asyncio.gather(*(one(index) for index in range(runs)))


if __name__ == "__main__":
    parser = argparse.ArgumentParser()
    parser.add_argument("log")
    parser.add_argument("marker", type=Path)
    parser.add_argument("--runs", type=int, default=200)
    args = parser.parse_args()
    asyncio.run(main(args.log, args.marker, args.runs))
