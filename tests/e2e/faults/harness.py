"""The fault suite's one runner: ``quorum run --json`` under hostile input, and the invariants every case keeps.

Every fault case, whatever it throws at Quorum, must end with: the expected exit code;
``run_finished`` present and last on stdout (when a run started); no traceback on stdout or
stderr; no process left running in the case's directory; the whole command done within the
configured timeout plus a margin. ``run_fault`` checks all of them and returns the result for
the case's own assertions.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Cli, Result

MARGIN_SECONDS = 60.0
"""Slack over the configured timeout: a hang detector, generous for a loaded 2-core machine."""


@dataclass
class FaultResult(Result):
    seconds: float = 0.0


def leftover_processes(root: Path) -> list[int]:
    """Processes (other than this one) whose working directory is inside ``root``."""
    found = []
    for pid in (p for p in os.listdir("/proc") if p.isdigit()):
        if int(pid) == os.getpid():
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd")
            state = Path(f"/proc/{pid}/stat").read_text().split(") ", 1)[1][0]
        except (OSError, IndexError):
            continue
        if state != "Z" and (cwd == str(root) or cwd.startswith(str(root) + "/")):
            found.append(int(pid))
    return found


def run_fault(
    cli: Cli,
    *args: str,
    expect_code: int,
    timeout: float,
    started: bool = True,
    memory_limit_bytes: int | None = None,
    send_signal: tuple[str, int] | None = None,
    **env: str,
) -> FaultResult:
    """Run ``quorum ARGS`` and check the invariants.

    Args:
        expect_code: the exit code the case must end with.
        timeout: the run's configured timeout (the wall-time bound is this plus ``MARGIN_SECONDS``).
        started: whether a run starts (then ``run_started`` is first and ``run_finished`` last).
        memory_limit_bytes: an address-space limit for the quorum process (RLIMIT_AS): exceeding it
            fails the case.
        send_signal: ``(text, signum)``: once ``text`` appears on stdout, send ``signum`` to quorum.
    """
    root = cli.workspace.parent

    def limit() -> None:  # runs in the child between fork and exec
        if memory_limit_bytes is not None:
            resource.setrlimit(resource.RLIMIT_AS, (memory_limit_bytes, memory_limit_bytes))

    began = time.monotonic()
    proc = subprocess.Popen(
        [sys.executable, "-m", "quorum.cli.main", *args],
        cwd=cli.workspace,
        env={**cli.env, **env},
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        preexec_fn=limit if memory_limit_bytes is not None else None,
    )
    try:
        if send_signal is not None:
            stdout = _signal_when(proc, *send_signal, deadline=began + timeout + MARGIN_SECONDS)
            rest_out, stderr = proc.communicate(timeout=timeout + MARGIN_SECONDS)
            stdout += rest_out
        else:
            stdout, stderr = proc.communicate(timeout=timeout + MARGIN_SECONDS)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.communicate()
        raise AssertionError(f"quorum did not finish within {timeout} s + {MARGIN_SECONDS} s") from None
    finally:
        reap_leftovers(root)
    seconds = time.monotonic() - began
    result = FaultResult(proc.returncode, stdout, stderr, seconds)
    assert result.code == expect_code, f"exit {result.code}, expected {expect_code}\n{stderr}"
    assert "Traceback" not in stdout and "Traceback" not in stderr, stderr
    if started:
        events = result.events()
        assert events and events[0]["type"] == "run_started", stdout[:500]
        assert events[-1]["type"] == "run_finished", stdout[-500:]
    assert seconds <= timeout + MARGIN_SECONDS
    return result


def _signal_when(proc: subprocess.Popen[str], text: str, signum: int, *, deadline: float) -> str:
    assert proc.stdout is not None
    seen = ""
    while text not in seen:
        line = proc.stdout.readline()
        if not line:
            return seen
        seen += line
        if time.monotonic() > deadline:
            return seen
    proc.send_signal(signum)
    return seen


def reap_leftovers(root: Path, *, wait: float = 10.0) -> None:
    """Fail the case if anything it started is still running in its directory, after killing it.

    A killed process group takes a moment to disappear: this waits up to ``wait`` seconds first.
    """
    deadline = time.monotonic() + wait
    while (left := leftover_processes(root)) and time.monotonic() < deadline:
        time.sleep(0.05)
    for pid in left:
        with contextlib.suppress(OSError):
            os.kill(pid, signal.SIGKILL)
    assert not left, f"processes left running: {left}"


def scripted(cli: Cli, turns: list[dict[str, Any]], name: str = "script.json") -> str:
    """Write a scripted model and return its ``--model`` value."""
    import json

    path = cli.workspace.parent / name
    path.write_text(json.dumps({"turns": turns}))
    return f"scripted:{path}"
