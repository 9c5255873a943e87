"""Ctrl+C, SIGTERM, SIGHUP and the whole-run timeout, end to end.

Written for a loaded machine: every wait is on something observable (an event on stdout, a file
the command creates), bounded by a generous deadline, and the process is killed whatever happens,
so a failing case cannot leave a run behind to break the next one.
"""

from __future__ import annotations

import json
import queue
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.faults.harness import reap_leftovers

DEADLINE = 90.0
"""Seconds any one wait may take: far beyond need, so only a real hang fails."""

SLOW = {
    "turns": [
        {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch started && sleep 300"}}]},
        {"text": "x"},
    ]
}


class Running:
    """A ``quorum`` process whose stdout is read by a thread, so waits on it have deadlines."""

    def __init__(self, cli: Cli, *args: str) -> None:
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "quorum.cli.main", *args],
            cwd=cli.workspace,
            env=cli.env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: queue.Queue[str | None] = queue.Queue()
        self.events: list[dict[str, Any]] = []
        self.stderr: list[str] = []
        self._out_reader = threading.Thread(target=self._read, daemon=True)
        self._out_reader.start()
        self._err_reader = threading.Thread(target=self._read_err, daemon=True)
        self._err_reader.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            self.lines.put(line)
        self.lines.put(None)

    def _read_err(self) -> None:
        assert self.proc.stderr is not None
        self.stderr.extend(self.proc.stderr)

    def wait_for_event(self, kind: str) -> None:
        end = time.monotonic() + DEADLINE
        while not any(e["type"] == kind for e in self.events):
            try:
                line = self.lines.get(timeout=max(0.0, end - time.monotonic()))
            except queue.Empty:
                raise AssertionError(f"no {kind!r} event within {DEADLINE} s") from None
            assert line is not None, f"quorum ended before a {kind!r} event: {self.events}"
            self.events.append(json.loads(line))

    def finish(self) -> tuple[list[dict[str, Any]], str]:
        """Wait for the exit; all events and stderr."""
        self.proc.wait(timeout=DEADLINE)
        while (line := self.lines.get(timeout=DEADLINE)) is not None:
            self.events.append(json.loads(line))
        self._err_reader.join(timeout=DEADLINE)
        return self.events, "".join(self.stderr)

    def close(self) -> None:
        """Kill the process if it still runs and release its pipes."""
        if self.proc.poll() is None:
            self.proc.kill()
        self.proc.wait()
        self._out_reader.join(timeout=DEADLINE)
        self._err_reader.join(timeout=DEADLINE)
        for stream in (self.proc.stdout, self.proc.stderr):
            if stream is not None:
                stream.close()


@pytest.fixture
def running(cli: Cli) -> Iterator[list[Running]]:
    started: list[Running] = []
    yield started
    for run in started:
        run.close()
    reap_leftovers(cli.workspace.parent, wait=30.0)


@pytest.mark.parametrize(
    ("signum", "code"),
    [(signal.SIGINT, 130), (signal.SIGTERM, 143), (signal.SIGHUP, 129)],
    ids=["SIGINT", "SIGTERM", "SIGHUP"],
)
def test_a_signal_during_an_approved_command_ends_the_run_cancelled(
    cli: Cli, running: list[Running], signum: int, code: int
) -> None:
    cli.write("slow.json", json.dumps(SLOW))
    run = Running(cli, "run", "--model", "scripted:slow.json", "--json", "--yes", "go")
    running.append(run)
    run.wait_for_event("review")  # the command is approved…
    end = time.monotonic() + DEADLINE
    while not (cli.workspace / "started").exists():  # …and running
        assert time.monotonic() < end and run.proc.poll() is None, "the command never started"
        time.sleep(0.02)
    run.proc.send_signal(signum)
    events, err = run.finish()
    assert run.proc.returncode == code, (err, [(e["type"], e.get("output"), e.get("stop_reason")) for e in events])
    assert events[-1]["type"] == "run_finished" and events[-1]["stop_reason"] == "cancelled"
    result = next(e for e in events if e["type"] == "tool_result")
    assert result["is_error"] and result["output"].startswith("cancelled")
    assert "Traceback" not in err
    # The run log has it as cancelled, not interrupted: the run ended properly.
    logged = cli("logs", "list", "--json", "-n", "1")
    assert json.loads(logged.stdout.splitlines()[0])["status"] == "cancelled", logged.stderr


def test_run_timeout_exits_3(cli: Cli) -> None:
    cli.write("slow.json", json.dumps(SLOW))
    result = cli("run", "--model", "scripted:slow.json", "--json", "--yes", "--timeout", "1", "go", timeout=DEADLINE)
    assert result.code == 3, result.stderr
    final = result.events()[-1]
    assert final["stop_reason"] == "timeout" and "timed out" in final["detail"]
