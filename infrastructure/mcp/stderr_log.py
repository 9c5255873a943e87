"""A stdio server's stderr, captured to a temporary file so failures can quote its last lines."""

from __future__ import annotations

import contextlib
import re
import tempfile
from pathlib import Path
from typing import Any

READ_LIMIT = 16384
"""Bytes read from the end of the log for a tail."""
LINE_LIMIT = 1000
"""Characters kept of one stderr line (a line is quoted in full up to this)."""
_FRAME = re.compile(r"^\s+at\s")
_FRAMES_KEPT = 2


def _fold_frames(lines: list[str]) -> list[str]:
    """Each run of stack-frame lines cut to its first two plus a count of the rest."""
    out: list[str] = []
    run = 0
    for line in lines:
        if _FRAME.match(line):
            run += 1
            if run <= _FRAMES_KEPT:
                out.append(line)
            elif run == _FRAMES_KEPT + 1:
                out.append("    … more stack frames")
            continue
        run = 0
        out.append(line)
    return out


class StderrLog:
    """The file a server's stderr goes to, and its tail since a mark.

    ``mark()`` is called after every good answer: when the server later fails, only what it wrote
    since then is quoted, so an old logged traceback is not blamed for a new failure.
    """

    def __init__(self, server: str) -> None:
        self._server = server
        self._file: Any = None
        self._mark = 0

    def file(self) -> Any:
        """The writable file (created on first use) to hand to the process as its stderr."""
        if self._file is None:
            self._file = tempfile.NamedTemporaryFile(  # noqa: SIM115 - lives as long as the connection
                "w+", prefix=f"quorum-mcp-{self._server}-", suffix=".log", delete=False
            )
        return self._file

    def size(self) -> int:
        try:
            return Path(self._file.name).stat().st_size if self._file is not None else 0
        except OSError:
            return 0

    def mark(self) -> None:
        self._mark = self.size()

    def tail(self, lines: int = 12, *, since_mark: bool = True) -> str:
        """The last ``lines`` non-empty lines (after the mark by default); empty for HTTP servers.

        Lines are kept whole (up to ``LINE_LIMIT`` characters each) and long runs of stack frames
        (``    at …``, as node prints them) are folded to their first two, so a crash's error line
        (``Error: …``, printed above its frames) is always among the lines quoted.
        """
        if self._file is None:
            return ""
        since = self._mark if since_mark else 0
        try:
            with open(self._file.name, "rb") as handle:
                handle.seek(0, 2)
                handle.seek(max(since, handle.tell() - READ_LIMIT))
                text = handle.read().decode("utf-8", errors="replace")
        except OSError:
            return ""
        kept = _fold_frames([line.rstrip()[:LINE_LIMIT] for line in text.splitlines() if line.strip()])
        return "\n".join(kept[-lines:])

    def suffix(self) -> str:
        """``tail()`` formatted to end an error message, or empty."""
        tail = self.tail()
        return f"\nserver stderr (last lines):\n{tail}" if tail else ""

    def close(self) -> None:
        """Close and delete the file. Idempotent."""
        if self._file is not None:
            name = self._file.name
            self._file.close()
            with contextlib.suppress(OSError):
                Path(name).unlink()
            self._file = None
