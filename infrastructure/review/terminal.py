"""TerminalPrompt: the human step on a terminal — the call, its votes, and approve / reject / always.

Questions go to stderr so ``--json`` output on stdout stays clean. Input is read from a file
descriptor through the event loop (``add_reader``), so a pending question is cancellable (a run
timeout or Ctrl+C ends it) and no thread is left blocked on stdin. End of input means reject.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
from typing import TextIO

from quorum.infrastructure.review.human import HumanAnswer, HumanRequest

MAX_ARGUMENT_LINES = 40
MAX_ATTEMPTS = 3


class TerminalPrompt:
    """A ``HumanPrompt`` on a terminal.

    Args:
        input_fd: where answers are read (default: stdin's descriptor).
        output: where questions are written (default: ``sys.stderr``).
    """

    def __init__(self, input_fd: int | None = None, output: TextIO | None = None) -> None:
        self._fd = sys.stdin.fileno() if input_fd is None else input_fd
        self._out = output if output is not None else sys.stderr
        self._buffer = b""
        self._eof = False

    async def ask(self, request: HumanRequest) -> HumanAnswer:
        self._write(render(request))
        for _ in range(MAX_ATTEMPTS):
            self._write(
                f"Approve {request.call.name}? [y]es / [n]o / [a]lways approve {request.call.name} for this run: "
            )
            line = await self._read_line()
            if line is None:
                self._write("\n(no input: rejected)\n")
                return HumanAnswer("reject", "no answer from the terminal (input closed)")
            answer = line.strip().lower()
            if answer in ("y", "yes"):
                return HumanAnswer("approve")
            if answer in ("a", "always"):
                return HumanAnswer("always")
            if answer in ("n", "no"):
                self._write("Reason for the model (optional, Enter to skip): ")
                reason = await self._read_line()
                return HumanAnswer("reject", (reason or "").strip())
            self._write("Please answer y, n or a.\n")
        return HumanAnswer("reject", f"no valid answer after {MAX_ATTEMPTS} attempts")

    def _write(self, text: str) -> None:
        self._out.write(text)
        self._out.flush()

    async def _read_line(self) -> str | None:
        """The next line without its newline, or None at end of input."""
        while b"\n" not in self._buffer:
            if self._eof:
                break
            await self._readable()
            try:
                chunk = os.read(self._fd, 4096)
            except BlockingIOError:
                continue
            except OSError:  # e.g. EIO when the terminal went away
                chunk = b""
            if not chunk:
                self._eof = True
            self._buffer += chunk
        if b"\n" not in self._buffer:
            if not self._buffer:
                return None
            line, self._buffer = self._buffer, b""
        else:
            line, _, self._buffer = self._buffer.partition(b"\n")
        return line.decode("utf-8", errors="replace").rstrip("\r")

    async def _readable(self) -> None:
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[None] = loop.create_future()

        def wake() -> None:
            if not ready.done():
                ready.set_result(None)

        try:
            loop.add_reader(self._fd, wake)
        except (PermissionError, NotImplementedError, ValueError):
            return  # a regular file (never blocks) or a loop without readers: read directly
        try:
            await ready
        finally:
            loop.remove_reader(self._fd)


def render(request: HumanRequest) -> str:
    """The text shown before the question."""
    call, context = request.call, request.context
    risk = f"{context.risk.value} risk" + (f": {context.risk_reason}" if context.risk_reason else "")
    arguments = json.dumps(dict(call.arguments), indent=2, ensure_ascii=False, default=str).splitlines()
    if len(arguments) > MAX_ARGUMENT_LINES:
        hidden = len(arguments) - MAX_ARGUMENT_LINES
        arguments = [*arguments[:MAX_ARGUMENT_LINES], f"… ({hidden} more lines)"]
    lines = [
        "",
        f"── review needed: {call.name} ({risk}) ──",
        f"why you are asked: {request.why}",
        "arguments:",
        *("  " + line for line in arguments),
    ]
    if request.votes:
        lines.append("votes:")
        for vote in request.votes:
            lines.append(
                f"  {vote.verdict.value.upper():7} {vote.reviewer} ({vote.latency:.1f} s): "
                f"{vote.reason or 'no reason given'}"
            )
    return "\n".join(lines) + "\n"
