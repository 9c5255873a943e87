"""TerminalPrompt: the human step on a terminal — the call, its votes, and approve / reject / always.

Questions go to stderr so ``--json`` output on stdout stays clean. Input is read from a file
descriptor through the event loop (``add_reader``), so a pending question is cancellable (a run
timeout or Ctrl+C ends it) and no thread is left blocked on stdin. End of input means reject.

Keys typed before a question appears are not answers to it: on a terminal, pending input is
discarded (``tcflush``) right before each approve/reject question, so ``y⏎`` typed while the model
was thinking cannot approve the call shown next. Everything written passes through ``printable``,
so escape sequences in arguments, files or reviewer reasons are shown, never obeyed.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import sys
from typing import Literal, TextIO

from quorum.infrastructure.review.call_view import call_lines
from quorum.infrastructure.review.human import HumanAnswer, HumanRequest
from quorum.infrastructure.terminal_text import printable
from quorum.infrastructure.tools.workspace import Workspace

MAX_SHOWN_LINES = 40
"""Lines of a call shown before ``[s]how all`` is needed."""
MAX_LINE_CHARS = 500
"""Characters of one line shown before ``[s]how all`` is needed."""


class TerminalPrompt:
    """A ``HumanPrompt`` on a terminal.

    Args:
        input_fd: where answers are read (default: stdin's descriptor).
        output: where questions are written (default: ``sys.stderr``).
        workspace: the directory file tools act in, so a write or an edit can be shown as a diff
            against the current file; without it only the new content is shown.
    """

    def __init__(
        self, input_fd: int | None = None, output: TextIO | None = None, *, workspace: Workspace | None = None
    ) -> None:
        self._fd = sys.stdin.fileno() if input_fd is None else input_fd
        self._out = output if output is not None else sys.stderr
        self._workspace = workspace
        self._buffer = b""
        self._eof = False

    async def ask(self, request: HumanRequest) -> HumanAnswer:
        shown, hidden = render(request, self._workspace)
        self._write(shown)
        choices: dict[str, Literal["approve", "reject", "always", "show"]] = {
            "y": "approve",
            "yes": "approve",
            "n": "reject",
            "no": "reject",
        }
        offers = ["[y]es", "[n]o"]
        if hidden:
            choices.update(s="show", show="show")
            offers.append("[s]how all")
        if request.always is not None:
            choices.update(a="always", always="always")
            offers.append(f"[a]lways approve {request.always.label} for this run")
        question = f"Approve {request.call.name}? {' / '.join(offers)}: "
        while True:
            self._discard_typeahead()
            self._write(question)
            line = await self._read_line()
            if line is None:
                self._write("\n(no input: rejected)\n")
                return HumanAnswer("reject", "no answer from the terminal (input closed)")
            choice = choices.get(line.strip().lower())
            if choice == "show":
                self._write(render(request, self._workspace, full=True)[0])
            elif choice == "approve" or choice == "always":
                return HumanAnswer(choice)
            elif choice == "reject":
                # Not flushed: typeahead here can only add a reason to a rejection.
                self._write("Reason for the model (optional, Enter to skip): ")
                reason = await self._read_line()
                return HumanAnswer("reject", (reason or "").strip())
            else:
                letters = ", ".join(offer[1] for offer in offers)
                self._write(f"Please answer {letters}.\n")

    async def ask_line(self, shown: str, question: str) -> str | None:
        """A ``LinePrompt``: ``shown`` then ``question``; the line typed, or None at end of input."""
        self._write(shown)
        self._discard_typeahead()
        self._write(question)
        return await self._read_line()

    def _discard_typeahead(self) -> None:
        """Drop input typed before the question: the kernel's queue (terminals only) and our buffer.

        On a pipe or a regular file the input is a script of answers written ahead on purpose, so
        it is kept.
        """
        if not os.isatty(self._fd):
            return
        self._buffer = b""
        try:
            import termios
        except ImportError:  # not a POSIX system
            return
        with contextlib.suppress(termios.error):  # the terminal went away: the read sees end of input
            termios.tcflush(self._fd, termios.TCIFLUSH)

    def _write(self, text: str) -> None:
        self._out.write(printable(text))  # every byte to the terminal, even the question's tool name
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


def render(request: HumanRequest, workspace: Workspace | None = None, *, full: bool = False) -> tuple[str, int]:
    """The text shown before the question, escaped for the terminal, and how many lines it cuts.

    The call's lines (``call_lines``) are cut after ``MAX_SHOWN_LINES`` lines and each after
    ``MAX_LINE_CHARS`` characters unless ``full``; what is cut is counted, never silently dropped.
    """
    call, context = request.call, request.context
    risk = f"{context.risk.value} risk" + (f": {context.risk_reason}" if context.risk_reason else "")
    body = call_lines(call, workspace)
    hidden = shortened = 0
    if not full:
        body, hidden, shortened = _cut(body)
    lines = [
        "",
        f"── review needed: {call.name} ({risk}) ──",
        f"why you are asked: {request.why}",
        *body,
    ]
    if hidden:
        lines.append(f"… {hidden} more line{'s' if hidden != 1 else ''} hidden ([s] shows all)")
    elif shortened:
        lines.append("… long lines are shortened ([s] shows all)")
    if request.votes:
        lines.append("votes:")
        for vote in request.votes:
            lines.append(
                f"  {vote.verdict.value.upper():7} {vote.reviewer} ({vote.latency_ms / 1000:.1f} s): "
                f"{vote.reason or 'no reason given'}"
            )
    return printable("\n".join(lines) + "\n"), hidden + shortened


def _cut(lines: list[str]) -> tuple[list[str], int, int]:
    """The first lines with long ones shortened, how many lines are hidden and how many shortened."""
    kept: list[str] = []
    shortened = 0
    for line in lines[:MAX_SHOWN_LINES]:
        if len(line) > MAX_LINE_CHARS:
            line = f"{line[:MAX_LINE_CHARS]}… ({len(line) - MAX_LINE_CHARS} more characters)"
            shortened += 1
        kept.append(line)
    return kept, len(lines) - len(kept), shortened
