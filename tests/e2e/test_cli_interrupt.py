"""Ctrl+C and the whole-run timeout, end to end."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time

from tests.e2e.conftest import Cli

SLOW = {
    "turns": [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch started && sleep 60"}}]},
        {"text": "x"},
    ]
}


def test_ctrl_c_ends_the_run_cancelled_with_exit_130(cli: Cli) -> None:
    cli.write("slow.json", json.dumps(SLOW))
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "quorum.cli.main",
            "run",
            "--model",
            "scripted:slow.json",
            "--json",
            "--yes",
            "go",
        ],
        cwd=cli.workspace,
        env=cli.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert proc.stdout is not None
    seen = []
    for line in proc.stdout:  # wait until the slow command has been approved…
        seen.append(json.loads(line))
        if seen[-1]["type"] == "review":
            break
    deadline = time.monotonic() + 30
    while not (cli.workspace / "started").exists():  # …and is running
        assert time.monotonic() < deadline and proc.poll() is None, "the command never started"
        time.sleep(0.01)
    proc.send_signal(signal.SIGINT)
    rest, err = proc.communicate(timeout=30)
    events = seen + [json.loads(line) for line in rest.splitlines()]
    assert proc.returncode == 130, err
    assert events[-1]["type"] == "run_finished" and events[-1]["stop_reason"] == "cancelled"
    result = next(e for e in events if e["type"] == "tool_result")
    assert result["is_error"] and result["output"].startswith("cancelled")
    assert "Traceback" not in err


def test_run_timeout_exits_3(cli: Cli) -> None:
    cli.write("slow.json", json.dumps(SLOW))
    result = cli("run", "--model", "scripted:slow.json", "--json", "--yes", "--timeout", "1", "go")
    assert result.code == 3, result.stderr
    final = result.events()[-1]
    assert final["stop_reason"] == "timeout" and "timed out" in final["detail"]
