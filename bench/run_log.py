"""The run log on vs off: 200 concurrent runs through the public API, as a ratio (decision 270).

``--runs`` one-tool-call runs at once (``--batch`` in flight, default all of them) on ONE ``Agent``
with ``run_log=<temp SQLite file>``, against the same runs on an ``Agent`` without a run log and the
bare openai SDK (``api_overhead.throughput``: the local Chat Completions wire server of tests/support
in a child process). Each variant is measured ``--repeats`` times in turn; runs/s are medians. The
log is then read back: every run is in it, finished, with as many events as its ``RunResult``.

    python bench/run_log.py [--runs 200] [--batch 200] [--repeats 5]

The last line printed is ``run log on/off: X (goal ≥ 0.95)``; ``run_log_ratio`` gives the figures
to another script (``bench/floors.py``).

Goal: log on / log off ≥ 0.95 (issue 38). Report the machine's load (printed) with the figure.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sqlite3
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.api_overhead import throughput  # noqa: E402


def check_log(log: Path, events_of: dict[str, int]) -> str:
    """Every run the agent reported is in the log, finished, with each of its events."""
    with sqlite3.connect(f"file:{log}?mode=ro", uri=True) as conn:
        statuses = dict(conn.execute("SELECT id, stop_reason FROM runs").fetchall())
        counts = dict(conn.execute("SELECT run_id, COUNT(*) FROM events GROUP BY run_id").fetchall())
    assert set(events_of) <= set(statuses), "a run is missing from the log"
    assert all(statuses[run] == "end_turn" for run in events_of)
    assert all(counts[run] == n for run, n in events_of.items()), "a run's events are missing from the log"
    return f"checked: the log holds all {len(statuses)} runs, each with all its events"


def run_log_ratio(runs: int = 200, repeats: int = 5, batch: int = 0) -> dict[str, Any]:
    """Measure the run log on vs off (``runs`` runs, ``batch`` in flight, 0: all; ``repeats`` rounds in turn).

    Returns ``ratio`` (median runs/s log on / log off), ``rates`` and ``cpu`` (per variant: the
    median runs/s and CPU seconds per run), ``loop_cpu`` (CPU seconds per run of the event loop's
    thread alone: what the run log costs the runs, less sensitive to the machine's load),
    ``ranges`` (min, max runs/s), ``load`` (the load average when it started) and ``checked``
    (what reading the log back found). For ``bench/floors.py`` and ``main``.
    """
    batch = batch or runs
    child = subprocess.Popen(
        [sys.executable, str(ROOT / "bench" / "api_overhead.py"), "--serve"],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
        cwd=ROOT,
    )
    try:
        assert child.stdout is not None
        url = child.stdout.readline().strip()
        load = os.getloadavg()
        with tempfile.TemporaryDirectory() as folder:
            log = Path(folder) / "runs.db"
            result = asyncio.run(throughput(url, runs, batch, repeats, log))
            verdict = check_log(log, result["events_of"])
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(10)
    rates = {name: statistics.median(values) for name, values in result["rates"].items()}
    return {
        "ratio": rates["log on"] / rates["log off"],
        "rates": rates,
        "ranges": {name: (min(values), max(values)) for name, values in result["rates"].items()},
        "cpu": {name: statistics.median(values) for name, values in result["cpu"].items()},
        "loop_cpu": {name: statistics.median(values) for name, values in result["loop_cpu"].items()},
        "load": load,
        "checked": verdict,
    }


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200, help="runs per measurement")
    parser.add_argument("--batch", type=int, default=0, help="runs in flight at once (0: all)")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per variant")
    args = parser.parse_args()
    figures = run_log_ratio(args.runs, args.repeats, args.batch)
    rates, load = figures["rates"], figures["load"]
    print(
        f"Run log: {args.runs} one-tool-call runs on one Agent, {args.batch or args.runs} at a time, "
        f"non-streaming; median of {args.repeats} (load {load[0]:.1f} {load[1]:.1f})"
    )
    for name, rate in rates.items():
        low, high = figures["ranges"][name]
        cpu, loop = figures["cpu"][name] * 1e3, figures["loop_cpu"][name] * 1e3
        print(
            f"  {name:<9} {rate:7.0f} runs/s  (range {low:.0f}–{high:.0f})  {cpu:6.3f} ms CPU/run, "
            f"{loop:6.3f} on the event loop's thread"
        )
    print(f"  log off / bare SDK = {rates['log off'] / rates['bare SDK']:.2f}, log on / bare SDK = "
          f"{rates['log on'] / rates['bare SDK']:.2f}")  # fmt: skip
    print(f"  {figures['checked']}")
    print(f"run log on/off: {figures['ratio']:.3f} (goal ≥ 0.95)")


if __name__ == "__main__":
    main()
