"""``from quorum import Agent`` against ``import openai``: the library's start as a ratio of the SDK's.

Fresh interpreters, alternating the commands in each round (the first round warms the file cache and
the .pyc files and is not counted), run outside the checkout so the installed package is imported.
Each figure is the median wall time above ``python -c pass``; the ratio is Agent's over openai's.
The modules ``from quorum import Agent`` loads are listed too (tests/unit/test_lazy_agent_import.py
holds that set; this script holds the time).

    python bench/import_agent.py [--rounds 21]

Goal: ≤ 0.3× ``import openai`` (issue 38). Report the machine's load (printed) with the figure.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time

COMMANDS = {
    "python -c pass": "pass",
    'python -c "import quorum"': "import quorum",
    'python -c "from quorum import Agent"': "from quorum import Agent",
    'python -c "import openai"': "import openai",
}


def medians(rounds: int) -> dict[str, float]:
    """Median wall milliseconds of each command over ``rounds`` fresh interpreters."""
    samples: dict[str, list[float]] = {label: [] for label in COMMANDS}
    with tempfile.TemporaryDirectory() as away:
        for round_ in range(rounds + 1):
            order = list(COMMANDS.items())
            if round_ % 2:
                order.reverse()
            for label, code in order:
                start = time.perf_counter()
                subprocess.run([sys.executable, "-c", code], cwd=away, check=True, capture_output=True)
                if round_:
                    samples[label].append(time.perf_counter() - start)
    return {label: statistics.median(values) * 1e3 for label, values in samples.items()}


def loaded_by_agent() -> str:
    probe = (
        "import sys\nbefore = set(sys.modules)\nfrom quorum import Agent\n"
        "print(' '.join(sorted(set(sys.modules) - before)))"
    )
    with tempfile.TemporaryDirectory() as away:
        out = subprocess.run([sys.executable, "-c", probe], cwd=away, check=True, capture_output=True, text=True)
    return out.stdout.strip()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--rounds", type=int, default=21, help="fresh interpreters per command")
    args = parser.parse_args()
    load = os.getloadavg()
    times = medians(args.rounds)
    floor = times["python -c pass"]
    print(f"Import time: median of {args.rounds} fresh interpreters, ms (load {load[0]:.1f} {load[1]:.1f})")
    for label, value in times.items():
        above = "" if label == "python -c pass" else f"   +{value - floor:7.1f} above python -c pass"
        print(f"  {label:<38} {value:7.1f}{above}")
    agent, openai = times['python -c "from quorum import Agent"'] - floor, times['python -c "import openai"'] - floor
    ratio = agent / openai if openai > 0 else float("nan")
    print(f"  ratio: from quorum import Agent / import openai = {ratio:.3f}  (goal ≤ 0.3)")
    print(f"  modules `from quorum import Agent` loads: {loaded_by_agent()}")


if __name__ == "__main__":
    main()
