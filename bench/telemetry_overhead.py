"""Per-turn overhead of OpenTelemetry tracing (issue 26): the loop with telemetry on against off.

A scripted session and an instant tool, so the difference is the tracing itself: per turn one
``chat`` span (with its two histograms) and one ``execute_tool`` span, under the run's
``invoke_agent`` span. On, the spans go through the SDK's batch processor to a real OTLP/HTTP
receiver on 127.0.0.1 (exported in the background, as in production), in its own process, so
its decoding is not counted as Quorum's CPU. Two clocks: the wall time
of the run (the export left at its end is flushed after it) and the process's CPU time, all
threads, flush included (what tracing costs the machine; steadier on a loaded one). Goal: under
0.3 ms per turn.

    python bench/telemetry_overhead.py [--turns 500] [--repeats 7]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.tools import ToolParameter
from quorum.infrastructure.telemetry.core import Telemetry
from quorum.infrastructure.telemetry.settings import TelemetrySettings
from quorum.infrastructure.telemetry.setup import build_telemetry
from quorum.infrastructure.telemetry.traced_agent import TracedAgent
from quorum.infrastructure.telemetry.traced_models import TracedGateway
from quorum.infrastructure.telemetry.traced_review import TracedReviewer
from quorum.infrastructure.telemetry.traced_tools import TracedExecutor
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

RECEIVER = (
    "import sys; from tests.support.otlp_receiver import OtlpReceiver; r = OtlpReceiver().start(); "
    "print(r.url, flush=True); sys.stdin.read(); print(len(r.spans), flush=True); r.stop()"
)
"""A receiver in a child process: prints its URL, and the spans it got once its stdin closes."""


async def instant(_: dict[str, Any]) -> str:
    return "ok"


def provider(_: str) -> str:
    return "fake"


async def run_loop(turns: int, telemetry: Telemetry | None, stream: bool) -> tuple[float, float]:
    """(wall seconds, CPU seconds) of a run of ``turns`` tool turns of one call each (and the final answer).

    The CPU time is the process's, all threads: it includes the export (encoding, sending) of the
    run's spans, flushed at the end; the wall time does not include that flush.
    """
    script = [calls(("read", {"path": f"a{i}.txt"})) for i in range(turns)] + [text("done")]  # no repeat guard
    tools = FakeTools()
    tools.add("read", instant, params=[ToolParameter(name="path", param_type="path")])
    gateway: Any = FakeGateway(ScriptedSession(script))
    executor: Any = tools
    reviewer: Any = ScriptedReviewer()
    if telemetry is not None:
        gateway = TracedGateway(gateway, telemetry, provider)
        executor = TracedExecutor(executor, telemetry)
        reviewer = TracedReviewer(reviewer, telemetry)
    agent: Any = RunAgent(
        gateway=gateway, executor=executor, schema=JsonSchema(), reviewer=reviewer, observer=RecordingObserver()
    )
    if telemetry is not None:
        agent = TracedAgent(agent, telemetry, provider)
    params = ExecutionParams(max_tool_turns=turns + 1, stream=stream)
    cpu, start = time.process_time(), time.perf_counter()
    result = await agent.execute(RunRequest(task="bench", model_id="fake:m", params=params))
    elapsed = time.perf_counter() - start
    assert result.stop_reason == "end_turn" and result.turns == turns + 1
    if telemetry is not None:
        telemetry.force_flush()  # what is left of the background export
    return elapsed, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--turns", type=int, default=500)
    parser.add_argument("--repeats", type=int, default=7)
    args = parser.parse_args()
    root = str(Path(__file__).resolve().parents[1])
    receiver = subprocess.Popen(
        [sys.executable, "-c", RECEIVER], cwd=root, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
    )
    assert receiver.stdout is not None and receiver.stdin is not None
    url = receiver.stdout.readline().strip()
    os.environ.setdefault("OTEL_BSP_MAX_QUEUE_SIZE", "8192")  # a run's spans all queued: none dropped, all paid for
    telemetry = build_telemetry(TelemetrySettings(enabled=True, endpoint=url), {})
    n = args.turns
    try:
        for stream in (False, True):
            asyncio.run(run_loop(50, None, stream))  # warm up imports and caches
            asyncio.run(run_loop(50, telemetry, stream))
            off, on = [], []
            for _ in range(args.repeats):  # interleaved, so a change of machine load hits both
                off.append(asyncio.run(run_loop(n, None, stream)))
                on.append(asyncio.run(run_loop(n, telemetry, stream)))
            mode = "streaming" if stream else "non-streaming"
            for index, clock in ((0, "wall"), (1, "CPU")):
                off_turn = statistics.median(r[index] for r in off) / n * 1e3
                on_turn = statistics.median(r[index] for r in on) / n * 1e3
                print(
                    f"{mode:>14} {clock:>4}: off {off_turn:.3f} ms/turn · on {on_turn:.3f} ms/turn · "
                    f"overhead {on_turn - off_turn:.3f} ms/turn (median of {args.repeats} runs of {n} turns)"
                )
    finally:
        telemetry.shutdown()
        received, _ = receiver.communicate("", timeout=60)
    print(f"spans received: {received.strip()}")


if __name__ == "__main__":
    main()
