"""Cost of running a low-risk ``run_command`` in the bubblewrap sandbox versus on the host (issue 10).

    python bench/sandbox_overhead.py [--runs 50] [--command ls]

Runs the same command through ``BuiltinToolSource`` both ways: unreviewed in the sandbox (the
low-risk path), and approved on the host (no sandbox). Reports the median and p90 wall time of
each and the median added by the sandbox. Also reports the one-time probe that decides whether a
sandbox works. Needs bubblewrap.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import tempfile
import time
from pathlib import Path

from quorum.domain.tools import Clearance, ToolCall
from quorum.infrastructure.sandbox import detect
from quorum.infrastructure.tools.builtin import BuiltinToolSource
from quorum.infrastructure.tools.settings import ToolsSettings
from quorum.infrastructure.tools.shell.launch import CommandLauncher


async def timings(source: BuiltinToolSource, command: str, clearance: Clearance, runs: int) -> list[float]:
    call = ToolCall(native_id="b", name="run_command", arguments={"command": command})
    out: list[float] = []
    for _ in range(runs + 3):
        started = time.perf_counter()
        outcome = await source.execute(call, clearance=clearance)
        out.append(time.perf_counter() - started)
        assert not outcome.is_error, outcome.output
    return out[3:]  # the first runs warm the page cache


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=50)
    parser.add_argument("--command", default="ls")
    args = parser.parse_args()

    started = time.perf_counter()
    status = detect.sandbox_status("auto")
    probe = time.perf_counter() - started
    if not status.enforced:
        raise SystemExit(f"no sandbox: {status.problem}")
    with tempfile.TemporaryDirectory() as tmp:
        workspace = Path(tmp).resolve()
        for i in range(20):
            (workspace / f"file{i}.txt").write_text("x\n")
        settings = ToolsSettings()
        source = BuiltinToolSource(workspace, settings, CommandLauncher(workspace, settings, status, os.environ))
        sandboxed = asyncio.run(timings(source, args.command, Clearance.UNREVIEWED, args.runs))
        host = asyncio.run(timings(source, args.command, Clearance.APPROVED, args.runs))

    def ms(values: list[float], q: float) -> float:
        return (
            statistics.quantiles(values, n=100)[int(q * 100) - 1] * 1000
            if q != 0.5
            else statistics.median(values) * 1000
        )

    print(f"sandbox: {status.describe()}; probe (once per process): {probe * 1000:.1f} ms")
    print(f"{args.command!r}, {args.runs} runs each")
    print(f"  host       median {ms(host, 0.5):6.2f} ms   p90 {ms(host, 0.9):6.2f} ms")
    print(f"  sandboxed  median {ms(sandboxed, 0.5):6.2f} ms   p90 {ms(sandboxed, 0.9):6.2f} ms")
    print(f"  added by the sandbox: {ms(sandboxed, 0.5) - ms(host, 0.5):.2f} ms per call (median)")


if __name__ == "__main__":
    main()
