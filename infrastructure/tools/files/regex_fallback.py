"""Python ``re`` searches for patterns RE2 refuses, in a killable child process with a per-file budget.

A backtracking search cannot be stopped from another thread, and a thread stuck in one kept the
process alive. So the fallback runs in ``regex_worker`` (a child Python), one file per request:
when a file takes longer than its budget, or the call is cancelled, the child is killed (and a
fresh one started for the next file). The search therefore always ends, and the result says which
files the budget cut.
"""

from __future__ import annotations

import contextlib
import json
import os
import select
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from quorum.infrastructure.tools.blocking import StopFlag, Stopped

FILE_BUDGET_SECONDS = 1.0
"""Longest a single file may take under Python's engine before its search is cut."""

STARTUP_SECONDS = 15.0
"""How long a child may take to start and compile the pattern (not charged to the file budget)."""

POLL_SECONDS = 0.05
WORKER = Path(__file__).with_name("regex_worker.py")


class FallbackSearch:
    """Searches files with Python's ``re`` in a child process; ``close`` it when done.

    Args:
        pattern: a pattern Python's ``re`` compiles (checked by the caller).
        cwd: where the child runs (the workspace, so a leftover would be noticed there).
        stop: the call's stop flag; when set the child is killed and ``Stopped`` raised.
        line_chars: longest text returned per matching line.
        max_bytes: most bytes of a file searched.
        budget_seconds: per-file time budget.
    """

    def __init__(
        self,
        pattern: str,
        cwd: Path,
        stop: StopFlag,
        *,
        line_chars: int,
        max_bytes: int,
        budget_seconds: float = FILE_BUDGET_SECONDS,
    ) -> None:
        self._header = {"pattern": pattern, "line_chars": line_chars, "max_bytes": max_bytes}
        self._cwd = cwd
        self._stop = stop
        self.budget_seconds = budget_seconds
        self._proc: subprocess.Popen[bytes] | None = None
        self._pending = b""

    def search(self, path: Path, max_hits: int) -> list[tuple[int, str]] | None:
        """The matching ``(line number, text)`` pairs of ``path``; ``None`` when the budget cut it.

        Raises:
            Stopped: the call was cancelled (the child is killed first).
            OSError: the file could not be read.
        """
        proc = self._proc or self._start()
        deadline = time.monotonic() + self.budget_seconds
        try:
            assert proc.stdin is not None
            proc.stdin.write(json.dumps({"path": str(path), "max": max_hits}).encode() + b"\n")
            proc.stdin.flush()
            reply = self._reply(proc, deadline)
        except (BrokenPipeError, TimeoutError, EOFError):
            self.close()  # over budget, or the child died: the next file gets a fresh one
            return None
        if "error" in reply:
            raise OSError(reply["error"])
        return [(int(number), str(text)) for number, text in reply["hits"]]

    def close(self) -> None:
        """Kill the child if one runs."""
        proc, self._proc, self._pending = self._proc, None, b""
        if proc is None:
            return
        with contextlib.suppress(OSError):
            proc.kill()
        for stream in (proc.stdin, proc.stdout):
            with contextlib.suppress(OSError):
                stream.close()  # type: ignore[union-attr]
        proc.wait()

    def _start(self) -> subprocess.Popen[bytes]:
        self._proc = subprocess.Popen(
            [sys.executable, "-I", "-S", str(WORKER)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=self._cwd,
            bufsize=0,
            start_new_session=True,  # Ctrl+C in the terminal is for Quorum, which then kills us
        )
        assert self._proc.stdin is not None
        try:
            self._proc.stdin.write(json.dumps(self._header).encode() + b"\n")
            self._reply(self._proc, time.monotonic() + STARTUP_SECONDS)  # {"ready": true}
        except (BrokenPipeError, TimeoutError, EOFError) as error:
            self.close()
            raise OSError("the Python regex fallback process did not start") from error
        return self._proc

    def _reply(self, proc: subprocess.Popen[bytes], deadline: float) -> dict[str, Any]:
        """The worker's next JSON line, as decoded (its shape is the worker's protocol, not checked here)."""
        assert proc.stdout is not None
        fd = proc.stdout.fileno()
        while b"\n" not in self._pending:
            if self._stop.is_set():
                self.close()
                raise Stopped
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError
            ready, _, _ = select.select([fd], [], [], min(left, POLL_SECONDS))
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise EOFError
                self._pending += chunk
        line, _, self._pending = self._pending.partition(b"\n")
        return json.loads(line)
