"""Cold start of the CLI (issue 3): ``quorum --help`` / ``--version`` against the interpreter floor.

    python bench/cold_start.py [--runs 15]

Target: ``quorum --help`` within 150 ms of ``python -c pass``. Also checks that neither command
imports a provider SDK or MCP.
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import time


def timed(cmd: list[str], runs: int) -> float:
    subprocess.run(cmd, capture_output=True, check=True)  # warm the OS file cache and .pyc files
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    script = shutil.which("quorum")
    quorum = [script] if script else [sys.executable, "-m", "quorum.cli.main"]
    floor = timed([sys.executable, "-c", "pass"], args.runs)
    rows = [("python -c pass", floor)]
    for label, extra in (("quorum --help", ["--help"]), ("quorum --version", ["--version"])):
        rows.append((label, timed([*quorum, *extra], args.runs)))
    for label, ms in rows:
        above = "" if label.startswith("python") else f"  (+{ms - floor:.0f} ms above the floor)"
        print(f"{label:<18} {ms:7.1f} ms median of {args.runs}{above}")
    probe = (
        "import sys\nfrom quorum.cli.main import cli\n"
        "try:\n    cli.main(args=['--help'], prog_name='quorum', standalone_mode=False)\nexcept SystemExit:\n    pass\n"
        "print(sorted(m for m in ('openai','anthropic','mcp','pydantic','dependency_injector') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    print(f"heavy modules imported by --help: {out.stdout.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
