"""Cold start of the CLI: ``quorum --help``, ``quorum chat --help``, and ``quorum chat`` to its prompt.

    python bench/cold_start.py [--runs 15]

Targets (issue 14): ``quorum --help`` and ``quorum chat --help`` within 100 ms of ``python -c
pass``; ``quorum chat`` from start to its prompt (drawn in a pseudo-terminal, the scripted demo
model, an empty workspace) under 400 ms. Also checks that ``--help`` imports no provider SDK, MCP,
rich or prompt_toolkit.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time


def timed(cmd: list[str], runs: int) -> float:
    subprocess.run(cmd, capture_output=True, check=True)  # warm the OS file cache and .pyc files
    samples = []
    for _ in range(runs):
        start = time.perf_counter()
        subprocess.run(cmd, capture_output=True, check=True)
        samples.append(time.perf_counter() - start)
    return statistics.median(samples) * 1000


def chat_to_prompt(quorum: list[str], runs: int) -> tuple[float, float]:
    """Median ms from spawning ``quorum chat`` in a pty until its prompt is drawn, and until it is set up.

    The prompt takes keys at once; the set-up (configuration, plugins, model) finishes behind it,
    and is done when the chat names the model above the prompt.
    """
    import pexpect

    with tempfile.TemporaryDirectory() as root:
        env = {
            **os.environ,
            "XDG_DATA_HOME": f"{root}/data",
            "XDG_CONFIG_HOME": f"{root}/config",
            "QUORUM_DB": f"{root}/runs.db",
            "PROMPT_TOOLKIT_NO_CPR": "1",
            "TERM": "xterm",
        }
        drawn, ready = [], []
        for attempt in range(runs + 1):
            start = time.perf_counter()
            child = pexpect.spawn(quorum[0], [*quorum[1:], "chat", "-m", "scripted:demo"], cwd=root, env=env)
            child.expect_exact("›".encode(), timeout=30)
            at_prompt = time.perf_counter() - start
            child.expect_exact(b"model scripted:demo", timeout=30)
            set_up = time.perf_counter() - start
            child.sendeof()
            child.expect(pexpect.EOF, timeout=30)
            child.close()
            if attempt:  # the first one warms the caches
                drawn.append(at_prompt)
                ready.append(set_up)
    return statistics.median(drawn) * 1000, statistics.median(ready) * 1000


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--runs", type=int, default=15)
    args = parser.parse_args()
    script = shutil.which("quorum")
    quorum = [script] if script else [sys.executable, "-m", "quorum.cli.main"]
    floor = timed([sys.executable, "-c", "pass"], args.runs)
    rows = [("python -c pass", floor)]
    for label, extra in (
        ("quorum --help", ["--help"]),
        ("quorum --version", ["--version"]),
        ("quorum chat --help", ["chat", "--help"]),
    ):
        rows.append((label, timed([*quorum, *extra], args.runs)))
    at_prompt, set_up = chat_to_prompt(quorum, args.runs)
    rows.append(("quorum chat → prompt", at_prompt))
    rows.append(("quorum chat → set up", set_up))
    for label, ms in rows:
        above = "" if label.startswith("python") else f"  (+{ms - floor:.0f} ms above the floor)"
        print(f"{label:<22} {ms:7.1f} ms median of {args.runs}{above}")
    probe = (
        "import sys\nfrom quorum.cli.main import cli\n"
        "for args in (['--help'], ['chat', '--help']):\n"
        "    try:\n        cli.main(args=args, prog_name='quorum', standalone_mode=False)\n"
        "    except SystemExit:\n        pass\n"
        "heavy = ('openai', 'anthropic', 'mcp', 'rich', 'prompt_toolkit', 'temporalio', 'dependency_injector')\n"
        "print(sorted(m for m in heavy if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True)
    print(f"heavy modules imported by --help and chat --help: {out.stdout.strip().splitlines()[-1]}")


if __name__ == "__main__":
    main()
