"""Framework overhead of the agent loop (issue 2).

A scripted fake session and zero-latency fake tools, so every microsecond measured is RunAgent's own
work (scheduling, validation, events, result bookkeeping). Also the wall time of 8 parallel
low-risk calls of 100 ms each (ideal: ~100 ms, not 800).

    python bench/loop_overhead.py [--turns 1000]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.tools import ToolParameter
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


async def instant(_: dict[str, Any]) -> str:
    return "ok"


async def run_loop(turns: int, calls_per_turn: int, stream: bool) -> float:
    """Seconds for a run of ``turns`` tool turns with ``calls_per_turn`` calls each."""
    # Each turn reads other paths: the loop guard stops a call repeated turn after turn.
    script = [calls(*[("read", {"path": f"t{turn}-{i}.txt"}) for i in range(calls_per_turn)]) for turn in range(turns)]
    script.append(text("done"))
    tools = FakeTools()
    tools.add("read", instant, params=[ToolParameter(name="path", param_type="path")])
    agent = RunAgent(
        gateway=FakeGateway(ScriptedSession(script)),
        executor=tools,
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=RecordingObserver(),
    )
    # compaction off: its summary request would take one of the scripted responses (bench/compaction.py times it)
    params = ExecutionParams(max_tool_turns=turns + 1, stream=stream, compact="off")
    start = time.perf_counter()
    result = await agent.execute(RunRequest(task="bench", model_id="fake:m", params=params))
    elapsed = time.perf_counter() - start
    assert result.stop_reason == "end_turn" and result.turns == turns + 1
    return elapsed


async def parallel_wall() -> float:
    async def slow(_: dict[str, Any]) -> str:
        await asyncio.sleep(0.1)
        return "ok"

    tools = FakeTools()
    tools.add("slow", slow)
    agent = RunAgent(
        gateway=FakeGateway(ScriptedSession([calls(*[("slow", {})] * 8), text("done")])),
        executor=tools,
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=RecordingObserver(),
    )
    start = time.perf_counter()
    await agent.execute(RunRequest(task="bench", model_id="fake:m"))
    return time.perf_counter() - start


def median_of(repeats: int, turns: int, calls_per_turn: int, stream: bool) -> float:
    return statistics.median(asyncio.run(run_loop(turns, calls_per_turn, stream)) for _ in range(repeats))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=1000)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args()
    n = args.turns
    asyncio.run(run_loop(50, 1, True))  # warm up imports and caches
    for stream in (False, True):
        one = median_of(args.repeats, n, 1, stream)
        eight = median_of(args.repeats, n, 8, stream)
        per_turn = one / n * 1e6
        per_call = (eight - one) / (7 * n) * 1e6
        mode = "streaming" if stream else "non-streaming"
        print(
            f"{mode:>14}: {per_turn:7.1f} µs per turn (1 call) · {per_call:6.1f} µs per extra tool call "
            f"· {eight / n * 1e6:7.1f} µs per turn with 8 calls"
        )
    walls = [asyncio.run(parallel_wall()) for _ in range(3)]
    print(f"8 parallel low-risk calls of 100 ms: {statistics.median(walls) * 1000:.0f} ms wall (median of 3)")


if __name__ == "__main__":
    main()
