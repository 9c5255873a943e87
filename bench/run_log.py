"""The run log on vs off: 200 concurrent runs through the public API, as a ratio (decision 270).

``--runs`` one-tool-call runs at once (``--batch`` in flight, default all of them) on ONE ``Agent``
with ``run_log=<temp SQLite file>``, against the same runs on an ``Agent`` without a run log and the
bare openai SDK (``api_overhead.throughput``: the local Chat Completions wire server of tests/support
in a child process). Each variant is measured ``--repeats`` times in turn; runs/s are medians. The
log is then read back: every run is in it, finished, with as many events as its ``RunResult``.

    python bench/run_log.py [--runs 200] [--batch 200] [--repeats 5]

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


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=200, help="runs per measurement")
    parser.add_argument("--batch", type=int, default=0, help="runs in flight at once (0: all)")
    parser.add_argument("--repeats", type=int, default=5, help="measurements per variant")
    args = parser.parse_args()
    batch = args.batch or args.runs
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
            result = asyncio.run(throughput(url, args.runs, batch, args.repeats, log))
            verdict = check_log(log, result["events_of"])
    finally:
        if child.stdin is not None:
            child.stdin.close()
        child.wait(10)
    rates = {name: statistics.median(values) for name, values in result["rates"].items()}
    print(
        f"Run log: {args.runs} one-tool-call runs on one Agent, {batch} at a time, non-streaming; "
        f"median of {args.repeats} (load {load[0]:.1f} {load[1]:.1f})"
    )
    for name, values in result["rates"].items():
        cpu = statistics.median(result["cpu"][name]) * 1e3
        print(
            f"  {name:<9} {rates[name]:7.0f} runs/s  (range {min(values):.0f}–{max(values):.0f})  {cpu:6.3f} ms CPU/run"
        )
    print(f"  ratio: log on / log off = {rates['log on'] / rates['log off']:.3f}  (goal ≥ 0.95)")
    print(f"  log off / bare SDK = {rates['log off'] / rates['bare SDK']:.2f}, log on / bare SDK = "
          f"{rates['log on'] / rates['bare SDK']:.2f}")  # fmt: skip
    print(f"  {verdict}")


if __name__ == "__main__":
    main()
