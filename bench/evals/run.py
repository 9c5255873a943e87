"""Run the eval's tasks with the real local model, in each tools profile; report what passed and what it cost.

    python bench/evals/run.py [--profile full|lean|both] [--template tests|continue|ask] [--only NAME ...] [--json]
                              [--keep DIR] [--baseline PYTHON]

Starts the real-model server of the test suite (Qwen2.5-Coder-1.5B on llama.cpp's server:
``python tests/support/real_model/install.py`` puts it in place; the ``realmodel`` extra installs
``xllamacpp``), then runs each task (``bench/evals/tasks.py``) as ``quorum run --json --yes`` in a
fresh workspace holding only the task's files; the configuration is passed with ``--config`` from
outside it. A task passes when its hidden check holds. Per task: passed, model calls (turns),
tokens, seconds; per profile: the sums, and tokens per passed task. ``--keep DIR`` keeps each task's
workspace and its events (``PROFILE-TASK.jsonl``) there to see what the model did. ``--template
continue`` serves the model with ``qwen25-mdjson-continue.jinja`` (after each result: the next call
while the task needs one, the answer once done) instead of the tests' template; ``--template ask``
with ``qwen25-mdjson-ask.jinja`` (after each result: the task restated, and "if it is done now, the
answer; if not, only the next call"). ``--baseline
PYTHON`` also runs every task with the Quorum that interpreter imports (an older checkout's
virtualenv, e.g. the commit before issue 34), with no ``tools_profile`` key (it predates profiles),
reported as profile ``base``: the same tasks, server and template, before and after.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT))

from bench.evals.tasks import TASKS, Task  # noqa: E402
from tests.support.real_model import MODEL_NAME, TEMPLATE, start_server  # noqa: E402

TEMPLATES = {
    "tests": TEMPLATE,
    "continue": TEMPLATE.with_name("qwen25-mdjson-continue.jinja"),
    "ask": TEMPLATE.with_name("qwen25-mdjson-ask.jinja"),
}

RUN_TIMEOUT = 1800  # seconds; a loaded 2-core machine serves 1-3 tokens a second
MAX_TOOL_TURNS = 8
BASE = "base"
"""The profile name of ``--baseline`` runs."""


def config(base_url: str, profile: str) -> str:
    """The run's quorum.toml: the local server, the profile (none for ``base``), the built-in tools."""
    chosen = "" if profile == BASE else f'tools_profile = "{profile}"\n'
    return f'''model = "local:{MODEL_NAME}"

[providers.local]
type = "openai"
base_url = "{base_url}"
api_key = "unused"
timeout = {RUN_TIMEOUT}
max_retries = 1
max_tokens = 400

[agent]
max_tool_turns = {MAX_TOOL_TURNS}
timeout_seconds = {RUN_TIMEOUT}
{chosen}'''


def run_task(task: Task, base_url: str, profile: str, scratch: Path, python: str = sys.executable) -> dict[str, Any]:
    """One task in a fresh workspace, run by ``python``'s Quorum; its outcome and costs."""
    workspace = scratch / f"{profile}-{task.name}"
    workspace.mkdir(parents=True)
    for name, text in task.files.items():
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text(text)
    settings = scratch / f"{profile}-{task.name}.toml"
    settings.write_text(config(base_url, profile))
    env = {**os.environ, "QUORUM_DB": str(scratch / "runs.db"), "NO_COLOR": "1"}
    command = [python, "-m", "quorum.cli.main", "run", "--json", "--yes", "--config", str(settings)]
    started = time.monotonic()
    done = subprocess.run(
        [*command, "--workspace", str(workspace), task.prompt],
        capture_output=True,
        text=True,
        env=env,
        cwd=workspace,
        timeout=RUN_TIMEOUT + 60,
        check=False,
    )
    seconds = time.monotonic() - started
    (scratch / f"{profile}-{task.name}.jsonl").write_text(done.stdout + done.stderr)
    finished = _finished(done.stdout)
    output = str(finished.get("output", ""))
    usage = finished.get("usage", {})
    return {
        "task": task.name,
        "profile": profile,
        "passed": bool(finished) and task.check(workspace, output),
        "stop_reason": finished.get("stop_reason", f"exit {done.returncode}"),
        "model_calls": finished.get("turns", 0),
        "tokens": int(usage.get("input_tokens", 0)) + int(usage.get("output_tokens", 0)),
        "seconds": round(seconds, 1),
    }


def _finished(stdout: str) -> dict[str, Any]:
    for line in reversed(stdout.splitlines()):
        try:
            event = json.loads(line)
        except ValueError:
            continue
        if event.get("type") == "run_finished":
            return dict(event)
    return {}


def summary(rows: list[dict[str, Any]], profile: str) -> str:
    """One profile's line: tasks passed, model calls, tokens, tokens per passed task, time."""
    mine = [row for row in rows if row["profile"] == profile]
    passed = sum(row["passed"] for row in mine)
    tokens = sum(row["tokens"] for row in mine)
    per_pass = f"{tokens // passed:,}" if passed else "—"
    calls = sum(row["model_calls"] for row in mine)
    seconds = sum(row["seconds"] for row in mine)
    return (
        f"{profile:<5} passed {passed}/{len(mine)}  model calls {calls}  tokens {tokens:,}  "
        f"tokens per passed task {per_pass}  time {seconds:.0f} s"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--profile", choices=("full", "lean", "both"), default="both")
    parser.add_argument("--template", choices=tuple(TEMPLATES), default="tests", help="the chat template")
    parser.add_argument("--only", nargs="*", help="task names to run (default: all)")
    parser.add_argument("--json", action="store_true", help="one JSON object per task on stdout")
    parser.add_argument("--keep", type=Path, help="keep each task's workspace and events in this folder")
    parser.add_argument(
        "--baseline", metavar="PYTHON", help="also run the tasks with the Quorum this interpreter imports"
    )
    args = parser.parse_args()
    profiles = ("full", "lean") if args.profile == "both" else (args.profile,)
    runners = {profile: sys.executable for profile in profiles}
    if args.baseline:
        runners = {BASE: args.baseline, **runners}
        profiles = (BASE, *profiles)
    tasks = [task for task in TASKS if not args.only or task.name in args.only]
    with tempfile.TemporaryDirectory(prefix="quorum-evals-") as folder:
        scratch = args.keep or Path(folder)
        scratch.mkdir(parents=True, exist_ok=True)
        server = start_server(scratch / "model.log", template=TEMPLATES[args.template])
        rows: list[dict[str, Any]] = []
        try:
            for profile in profiles:
                for task in tasks:
                    row = run_task(task, server.base_url, profile, scratch, runners[profile])
                    rows.append(row)
                    shown = (
                        json.dumps(row)
                        if args.json
                        else (
                            f"{profile:<5} {task.name:<14} {'pass' if row['passed'] else 'FAIL'}  "
                            f"{row['stop_reason']:<14} calls {row['model_calls']:>2}  tokens {row['tokens']:>6,}  "
                            f"{row['seconds']:>5.0f} s"
                        )
                    )
                    print(shown, flush=True)
        finally:
            server.stop()
    for profile in profiles:
        print(summary(rows, profile))


if __name__ == "__main__":
    main()
