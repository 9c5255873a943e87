"""Running one command line: a timeout that kills its process group, capped concurrent capture."""

from __future__ import annotations

import asyncio
import contextlib
import os
import signal
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quorum.application import model_wording as say
from quorum.domain.tools import ToolResult
from quorum.infrastructure.tools.shell.progress import CommandProgress

DEFAULT_TIMEOUT = 60.0
MAX_TIMEOUT = 600.0
_DRAIN_AFTER_KILL = 2.0
_POLL = 0.05

_Readers = asyncio.Future[tuple[None, None]]
"""The gathered stdout and stderr drains of one command."""


@dataclass
class _Capture:
    """Keeps the first ``limit`` bytes of a stream and counts the rest, so output never piles up."""

    limit: int
    data: bytearray
    total: int = 0
    seen: Callable[[bytes], None] | None = None
    """Also shown every chunk read (the live progress), whether kept or not."""

    async def drain(self, stream: asyncio.StreamReader) -> None:
        while chunk := await stream.read(65536):
            if self.seen is not None:
                self.seen(chunk)
            self.total += len(chunk)
            room = self.limit - len(self.data)
            if room > 0:
                self.data.extend(chunk[:room])

    def text(self) -> str:
        body = self.data.decode("utf-8", errors="replace")
        if self.total > len(self.data):
            body += f"\n[truncated: showed {len(self.data)} of {self.total} bytes]"
        return body


async def _wait_exit(process: asyncio.subprocess.Process, readers: _Readers, timeout: float) -> bool:
    """Wait until the shell exits (True) or ``timeout`` passes (False).

    ``Process.wait()`` also waits for the pipes to close, which a background grandchild can delay
    for ever; ``returncode`` is set as soon as the shell itself exits, so it is watched instead,
    waking early whenever the pipes close.
    """
    loop = asyncio.get_running_loop()
    deadline = loop.time() + timeout
    while process.returncode is None:
        if readers.done():
            await process.wait()
            break
        remaining = deadline - loop.time()
        if remaining <= 0:
            return False
        await asyncio.wait({readers}, timeout=min(_POLL, remaining))
    return True


async def _reap(process: asyncio.subprocess.Process) -> None:
    """Wait briefly for a killed ``process`` to be reaped, and close our side of it.

    Called while a cancellation propagates: left to the garbage collector, the process would be
    found "still running" with an unclosed transport after its event loop closed. A second
    cancellation cuts the wait short; the first one is re-raised by the caller either way.
    """
    with contextlib.suppress(TimeoutError, asyncio.CancelledError):
        await asyncio.wait_for(process.wait(), _DRAIN_AFTER_KILL)
    process._transport.close()  # type: ignore[attr-defined]  # no public handle (see _finish)


def _consume(future: asyncio.Future[Any]) -> None:
    """Mark an abandoned future's outcome as seen (no "exception was never retrieved" noise)."""
    if not future.cancelled():
        future.exception()


def _kill_group(process: asyncio.subprocess.Process) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(process.pid, signal.SIGKILL)


async def _spawn(argv: Sequence[str], **options: Any) -> asyncio.subprocess.Process:
    """``create_subprocess_exec`` that, cancelled mid-spawn, still kills the group it started.

    The child exists as soon as the fork is done, before the pipes are connected. Cancelled there
    (a signal ending the run), asyncio kills only the direct child, and a shell's children would
    outlive it, so the spawn is shielded, finished, and its whole group killed before giving up.
    """
    spawn = asyncio.ensure_future(asyncio.create_subprocess_exec(*argv, **options))
    try:
        return await asyncio.shield(spawn)
    except asyncio.CancelledError:
        with contextlib.suppress(Exception):
            process = await spawn
            _kill_group(process)
            await asyncio.wait_for(process.wait(), _DRAIN_AFTER_KILL)  # reaped, pipes closed
        raise


async def run_command(
    argv: Sequence[str],
    *,
    cwd: Path,
    timeout: float,
    limit_bytes: int,
    env: Mapping[str, str],
    progress: CommandProgress | None = None,
) -> ToolResult:
    """Run ``argv`` (e.g. ``[*sandbox, "/bin/sh", "-c", command]``) in ``cwd`` with exactly ``env``.

    stdin is empty. The child leads a new process group; on timeout or cancellation the whole group is killed, so
    ``sleep 100 &`` style grandchildren go too (inside a sandbox, killing bubblewrap ends its
    whole PID namespace). stdout and stderr are captured concurrently (a chatty command cannot
    fill a pipe and stall) and each is capped at ``limit_bytes``. The result states the exit code;
    a non-zero exit or a timeout is an error result.

    With ``progress``, the latest output line is reported while the command runs; reporting
    stops before the result is built, and the result is the same with or without it.
    """
    process = await _spawn(
        argv,
        cwd=cwd,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        start_new_session=True,
        env=dict(env),
    )
    out, err = _Capture(limit_bytes, bytearray()), _Capture(limit_bytes, bytearray())
    reporter = None
    if progress is not None:
        out.seen, err.seen = progress.feeder(), progress.feeder()
        reporter = asyncio.ensure_future(progress.run())
    try:
        return await _finish(process, out, err, timeout)
    finally:
        if reporter is not None:
            reporter.cancel()
            await asyncio.wait({reporter})  # no report after the result; a cancel of ours still propagates
            _consume(reporter)


async def _finish(process: asyncio.subprocess.Process, out: _Capture, err: _Capture, timeout: float) -> ToolResult:
    """Capture ``process``'s output until it exits or ``timeout`` passes, then kill its group (see ``run_command``)."""
    assert process.stdout is not None and process.stderr is not None
    readers = asyncio.ensure_future(asyncio.gather(out.drain(process.stdout), err.drain(process.stderr)))
    try:
        timed_out = not await _wait_exit(process, readers, timeout)
    except BaseException:
        _kill_group(process)
        readers.cancel()
        readers.add_done_callback(_consume)
        await _reap(process)
        raise
    # Background children (``sleep 100 &``) may outlive the shell and hold the pipes open; the
    # command is over when the shell is, so its whole group goes.
    _kill_group(process)
    # A process that escaped the group may still hold a pipe; keep what was read by then.
    try:
        await asyncio.wait_for(readers, _DRAIN_AFTER_KILL)
    except TimeoutError:
        readers.add_done_callback(_consume)
        # Close our ends of the pipes now: left to the garbage collector, the transport would
        # close them after the event loop is gone and print a traceback at exit. There is no
        # public handle on it (asyncio.subprocess.Process keeps it private).
        process._transport.close()  # type: ignore[attr-defined]
    if process.returncode is None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(process.wait(), _DRAIN_AFTER_KILL)
    parts = [f"exit code: {process.returncode}"]
    if timed_out:
        parts[0] = say.tool_timed_out("run_command", timeout, say.process_group_killed(process.returncode))
    parts.append("--- stdout ---\n" + (out.text() if out.total else "(empty)"))
    if err.total:
        parts.append("--- stderr ---\n" + err.text())
    return ToolResult(output="\n".join(parts), is_error=timed_out or process.returncode != 0)
