"""Issue 38's figures, each against its floor, measured in one run: the table docs/development.md quotes.

    python bench/floors.py [--quick] [--only NAME ...] [--markdown]

Runs, one after another in this process, the ``figure()`` of each benchmark below (each script's
own ``main`` prints more detail and takes larger settings), and prints one line per figure: what
was measured, its floor, the figure as its goal states it, and whether the goal is met, with the
machine's load before each. ``--quick`` uses small settings (a smoke run: the figures are then not
the ones to quote). ``--markdown`` prints the table rows for docs/development.md.
"""

from __future__ import annotations

import argparse
import importlib
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.figure import Figure, load

BENCHMARKS: dict[str, str] = {
    "import": "bench.import_agent",
    "checkpoints": "bench.checkpoints",
    "served": "bench.serve_overhead",
}
"""Figure name → the module whose ``figure(quick)`` measures it, in the order they run."""


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


def measure(name: str, quick: bool) -> Figure:
    """The figure ``name`` (a key of ``BENCHMARKS``)."""
    measure_one: Callable[[bool], Figure] = importlib.import_module(BENCHMARKS[name]).figure
    return measure_one(quick)


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
        got = measure(name, args.quick)
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
