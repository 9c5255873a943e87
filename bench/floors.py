"""Issue 38's figures, each against its floor, measured in one run: the table docs/development.md quotes.

    python bench/floors.py [--quick] [--only NAME ...] [--markdown]

Runs, one after another in this process, each benchmark's measuring function (each script's own
``main`` prints more detail and takes other settings), and prints one line per figure: what
was measured, its floor, the figure as its goal states it, and whether the goal is met, with the
machine's load before each. ``--quick`` uses small settings (a smoke run: the figures are then not
the ones to quote). ``--markdown`` prints the table rows for docs/development.md.
"""

from __future__ import annotations

import argparse
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.figure import Figure, load


def _per_turn(quick: bool) -> Figure:
    from bench.api_overhead import per_turn_overhead

    got = per_turn_overhead(turns=60 if quick else 300)
    return Figure(
        "per-turn CPU of a one-turn `Agent.run` over one bare `openai` SDK `create` (non-streaming;"
        f" streaming {got['streaming_overhead_ms']:+.2f} ms)",
        "python bench/api_overhead.py --turns-only",
        f"{got['agent_ms']:.2f} ms",
        f"{got['bare_ms']:.2f} ms",
        f"{got['overhead_ms']:+.2f} ms",
        f"≤ +{got['goal_ms']:g} ms",
        got["overhead_ms"] <= got["goal_ms"],
    )


def _run_log(quick: bool) -> Figure:
    from bench.run_log import run_log_ratio

    got = run_log_ratio(runs=200, repeats=2 if quick else 5)
    return Figure(
        "200 concurrent one-tool-call runs on one `Agent` with the run log (SQLite) / without",
        "python bench/run_log.py",
        f"{got['rates']['log on']:.0f} runs/s",
        f"{got['rates']['log off']:.0f} runs/s",
        f"{got['ratio']:.2f}×",
        "≥ 0.95×",
        got["ratio"] >= 0.95,
    )


def _import(quick: bool) -> Figure:
    from bench.import_agent import medians

    times = medians(5 if quick else 21)
    floor = times["python -c pass"]
    agent, openai = times['python -c "from quorum import Agent"'] - floor, times['python -c "import openai"'] - floor
    ratio = agent / openai if openai > 0 else float("nan")
    return Figure(
        "`from quorum import Agent` / `import openai`, each above `python -c pass`",
        "python bench/import_agent.py",
        f"+{agent:.0f} ms",
        f"+{openai:.0f} ms",
        f"{ratio:.3f}×",
        "≤ 0.3×",
        ratio <= 0.3,
    )


def _sandbox(quick: bool) -> Figure:
    from bench.sandbox_overhead import sandbox_cost

    got = sandbox_cost(runs=20 if quick else 60)
    return Figure(
        "a sandboxed read-only `run_command` (`ls`) over the same unsandboxed",
        "python bench/sandbox_overhead.py",
        f"{got['sandboxed_ms']:.1f} ms",
        f"{got['host_ms']:.1f} ms",
        f"+{got['added_ms']:.1f} ms",
        f"≤ +{got['goal_ms']:g} ms",
        got["added_ms"] <= got["goal_ms"],
    )


def _hook(quick: bool) -> Figure:
    from bench.hook_overhead import hook_cost

    got = hook_cost(runs=40 if quick else 200)
    return Figure(
        "a `pre_tool_use` hook's call over the hook's own process",
        "python bench/hook_overhead.py",
        f"{got['hooked_ms']:.1f} ms",
        f"{got['alone_ms']:.1f} ms",
        f"+{got['added_ms']:.2f} ms",
        f"≤ +{got['goal_ms']:g} ms",
        got["added_ms"] <= got["goal_ms"],
    )


def _checkpoints(quick: bool) -> Figure:
    from bench.checkpoints import measure

    files = 2_000 if quick else 10_000
    median = measure(files, 40 if quick else 200, 11 if quick else 21, 3)["median"] * 1000
    return Figure(
        f"a checkpoint after a batch changing 3 files of {files:,}",
        "python bench/checkpoints.py",
        f"{median:.1f} ms",
        "no checkpoint",
        f"{median:.1f} ms a batch",
        "≤ 100 ms",
        median <= 100,
    )


def _served(quick: bool) -> Figure:
    from bench.serve_overhead import served_vs_library

    got = served_vs_library(runs=5, concurrent=200, rounds=2 if quick else 5, memory=False)
    ratio = got["http_rate"] / got["lib_rate"]
    return Figure(
        "200 concurrent runs served (HTTP + SSE) / the same runs with the library",
        "python bench/serve_overhead.py",
        f"{got['http_rate']:.0f} runs/s",
        f"{got['lib_rate']:.0f} runs/s",
        f"{ratio:.2f}×",
        "≥ 0.5×",
        ratio >= 0.5,
    )


def _durable(quick: bool) -> Figure:
    from bench.temporal_overhead import durable_throughput

    runs = 20 if quick else 100
    got = durable_throughput(runs=runs, turns=20, workers=2)
    return Figure(
        f"durable runs: {runs} concurrent 20-turn runs on 2 `quorum worker` processes",
        "python bench/temporal_overhead.py",
        f"{got['runs_per_s']:.2f} runs/s",
        f"a bare workflow's {got['floor_ms_per_turn']:.1f} ms a turn, Quorum +{got['overhead_ms_per_turn']:.1f} ms",
        f"{got['runs_per_s']:.2f} runs/s",
        "≥ 3 runs/s",
        got["runs_per_s"] >= 3,
    )


BENCHMARKS: dict[str, Callable[[bool], Figure]] = {
    "per_turn": _per_turn,
    "run_log": _run_log,
    "import": _import,
    "sandbox": _sandbox,
    "hook": _hook,
    "checkpoints": _checkpoints,
    "served": _served,
    "durable": _durable,
}
"""Figure name → what measures it (small settings when given True), in the order they run."""


def machine() -> str:
    """The machine the figures were measured on, in one line."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{os.cpu_count()} cores, {cpu}, Python {platform.python_version()}"


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="small settings: a smoke run, not figures to quote")
    parser.add_argument("--only", nargs="*", choices=tuple(BENCHMARKS), help="these figures only")
    parser.add_argument("--markdown", action="store_true", help="also print the table rows for docs/development.md")
    args = parser.parse_args()
    print(f"machine: {machine()}", flush=True)
    figures: list[tuple[Figure, str]] = []
    for name in args.only or BENCHMARKS:
        before = load()
        started = time.monotonic()
        got = BENCHMARKS[name](args.quick)
        figures.append((got, before))
        verdict = "met" if got.met else "NOT MET"
        print(
            f"{got.name}: {got.shown} ({got.measured} vs {got.floor}); goal {got.goal}: {verdict}"
            f"  [{before}, {time.monotonic() - started:.0f} s]",
            flush=True,
        )
    if args.markdown:
        print("\n| Figure | Command | Goal | Measured (vs floor) | |\n|---|---|---|---|---|")
        for got, _ in figures:
            print(got.row())
    if not all(got.met for got, _ in figures):
        sys.exit(1)


if __name__ == "__main__":
    main()
