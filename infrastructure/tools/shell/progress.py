r"""``CommandProgress``: a running command's latest output line, reported a few times a second.

The live status shows what a long ``run_command`` is doing (``running run_command · 3.2 s ·
Compiling foo``). The drains of stdout and stderr feed every chunk they read (``feeder``); a
reporter task (``run``) sends the newest non-empty line whenever it changed, then waits
``interval`` before the next report, so a chatty command costs a few events per second and the
line shown is always the latest one. Lines end at ``\n`` or ``\r`` (a progress bar redrawing itself
with ``\r`` shows its latest state); a line still being written counts as the latest line.

The message is one short line: colour and cursor sequences are dropped, known secrets are
replaced *before* the line is shortened (a cut must never leave half a secret unmatched), the tail
of an unfinished line that could be the start of a secret is held back until the line goes on,
other control characters are shown escaped, and it is cut to ``width`` characters. The run's
observer redacts every event again; this only makes sure there is nothing left for it to miss.
"""

from __future__ import annotations

import asyncio
import codecs
import re
from collections.abc import Callable

from quorum.domain.secrets import Redactor
from quorum.infrastructure.terminal_text import printable

INTERVAL = 0.25
"""Seconds between two reports of one command (at most four a second)."""
WIDTH = 120
"""Characters of a reported line."""
LINE_KEEP = 4096
"""Characters of one line held while it is written (a line without a newline may be endless)."""

_BREAK = re.compile(r"[\r\n]")
# CSI (colours, cursor moves, erase line), OSC (titles, hyperlinks) and two-character escapes.
_ESCAPES = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]")


def _visible(line: str) -> bool:
    return bool(_ESCAPES.sub("", line).strip())


class CommandProgress:
    """Reports the latest output line of one running command through ``report`` (see the module docstring).

    Args:
        report: receives each message (``quorum.application.run_context.report_progress``).
        redactor: the secrets to replace before a line is shortened.
        interval: seconds to wait after a report before the next one.
        width: the longest message, in characters.
    """

    def __init__(
        self,
        report: Callable[[str], None],
        *,
        redactor: Redactor | None = None,
        interval: float = INTERVAL,
        width: int = WIDTH,
    ) -> None:
        self._report = report
        self._redactor = redactor or Redactor()
        self._interval = interval
        self._width = width
        self._latest: tuple[str, bool] | None = None  # the line, and whether it is whole
        self._changed = asyncio.Event()
        self._sent = ""

    def feeder(self) -> Callable[[bytes], None]:
        """A function to call with each chunk one stream (stdout or stderr) yields, in order."""
        decoder = codecs.getincrementaldecoder("utf-8")(errors="replace")
        partial = ""

        def feed(chunk: bytes) -> None:
            nonlocal partial
            text = decoder.decode(chunk)
            if not text:
                return
            pieces = _BREAK.split(partial + text)
            partial = pieces[-1][:LINE_KEEP]
            if _visible(partial):
                self._offer(partial, whole=False)
                return
            for line in reversed(pieces[:-1]):
                if _visible(line):
                    self._offer(line[:LINE_KEEP], whole=len(line) <= LINE_KEEP)
                    return

        return feed

    def _offer(self, line: str, *, whole: bool) -> None:
        self._latest = (line, whole)
        self._changed.set()

    async def run(self) -> None:
        """Report the latest line whenever it changed, at most once per ``interval``; until cancelled.

        Progress is best effort: if ``report`` raises, reporting stops and the command runs on.
        """
        while True:
            await self._changed.wait()
            self._changed.clear()
            message = self.message()
            if not message or message == self._sent:
                continue
            self._sent = message
            try:
                self._report(message)
            except Exception:  # a broken observer shows up in the run's own events, not here
                return
            await asyncio.sleep(self._interval)

    def message(self) -> str:
        """The latest line as it would be reported ("" before any output)."""
        if self._latest is None:
            return ""
        line, whole = self._latest
        text = self._redactor.text(_ESCAPES.sub("", line))
        if not whole:
            text = self._without_secret_start(text)
        text = printable(" ".join(text.split()))
        return text if len(text) <= self._width else text[: self._width - 1] + "…"

    def _without_secret_start(self, text: str) -> str:
        """``text`` without a tail that could be the beginning of a secret still being written."""
        cut = len(text)
        for secret in self._redactor.secrets:
            for size in range(min(len(secret.value) - 1, len(text)), 0, -1):
                if text.endswith(secret.value[:size]):
                    cut = min(cut, len(text) - size)
                    break
        return text[:cut]
