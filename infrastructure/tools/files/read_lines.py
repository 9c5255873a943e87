"""Streaming a slice of lines out of a file in bounded chunks: memory follows the output, not the file.

``for line in handle`` reads a whole line into memory, and a 400 MiB file without a newline is one
line. Here every read is at most ``CHUNK_BYTES``: lines before the slice are skipped chunk by chunk,
reading stops once the output budget is spent, and a line longer than the budget is cut. Reading
also stops at the size the file had when opened, so a file growing while read cannot keep it going.
"""

from __future__ import annotations

import io
from dataclasses import dataclass

from quorum.infrastructure.tools.blocking import StopFlag

CHUNK_BYTES = 64 * 1024


@dataclass(frozen=True)
class LineSlice:
    """Lines read by ``read_lines``.

    Attributes:
        data: the bytes of the lines shown (the last one possibly cut).
        first: the number of the first line shown (1-based).
        shown: how many lines are shown, whole or cut.
        lines_seen: how many lines were read past or shown.
        more: whether the file goes on after what is shown.
        cut_line: the number of a line cut at the budget, else ``None``.
    """

    data: bytes
    first: int
    shown: int
    lines_seen: int
    more: bool
    cut_line: int | None


def _char_boundary(data: bytes, end: int) -> int:
    """``end`` moved back so that ``data[:end]`` does not split a UTF-8 sequence."""
    while 0 < end < len(data) and data[end] & 0xC0 == 0x80:
        end -= 1
    return end


def read_lines(
    handle: io.BufferedReader, size: int, offset: int, limit: int | None, budget: int, stop: StopFlag
) -> LineSlice:
    """Lines ``offset`` to ``offset + limit - 1`` of ``handle``, at most ``budget`` bytes of them.

    Args:
        handle: a buffered binary reader at the start of the file.
        size: the file's size when opened: nothing past it is read.
        offset: the first line to show, 1-based.
        limit: the most lines to show; ``None`` for as many as fit.
        budget: the most bytes to show.
        stop: checked before each chunk.

    Raises:
        Stopped: the stop flag was set.
    """
    kept: list[bytes] = []
    used = consumed = shown = 0
    line_number = 1
    at_line_start = True
    cut_line: int | None = None
    more = False
    while consumed < size:
        stop.check()
        piece = handle.readline(min(CHUNK_BYTES, size - consumed))
        if not piece:
            break
        consumed += len(piece)
        ends_line = piece.endswith(b"\n")
        if line_number >= offset:
            if at_line_start and limit is not None and shown >= limit:
                more = True
                break
            if used + len(piece) > budget:
                more = True
                if at_line_start and kept:
                    break  # the next line does not fit: stop before it rather than cut it
                end = _char_boundary(piece, budget - used)
                kept.append(piece[:end])
                cut_line = line_number
                shown += at_line_start
                break
            kept.append(piece)
            used += len(piece)
            shown += at_line_start
        at_line_start = ends_line
        line_number += ends_line
    lines_seen = line_number - (1 if at_line_start else 0)
    return LineSlice(b"".join(kept), offset, shown, lines_seen, more, cut_line)
