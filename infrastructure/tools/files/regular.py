"""Opening only regular files, never blocking: named pipes, sockets and devices are refused.

Opening a FIFO for reading waits for a writer, forever; reading a device can stream without end.
So the type is checked with ``stat`` first (no open at all for a special file), and the open
itself uses ``O_NONBLOCK`` followed by ``fstat`` on the descriptor, which closes the race where
the name is swapped for a pipe between the check and the open.
"""

from __future__ import annotations

import io
import os
import stat
from pathlib import Path

from quorum.domain.errors import ToolRefusedError

READ_BUFFER_BYTES = 64 * 1024

_KINDS = (
    (stat.S_ISFIFO, "a named pipe (FIFO)"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISCHR, "a character device"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISDIR, "a directory"),
    (stat.S_ISLNK, "a symbolic link"),
)


class NotRegularFileError(ToolRefusedError):
    """The path names something other than a regular file (pipe, socket, device, directory)."""


def kind_of(mode: int) -> str:
    """What a file of ``mode`` is, in words ("a named pipe (FIFO)", "a regular file"…)."""
    for test, words in _KINDS:
        if test(mode):
            return words
    return "a regular file" if stat.S_ISREG(mode) else "a special file"


def refuse_unless_regular(mode: int, shown: str, tool: str) -> None:
    """Raise ``NotRegularFileError`` unless ``mode`` is a regular file's.

    Args:
        mode: ``st_mode`` of the file.
        shown: the path as the model gave it, for the message.
        tool: the tool's name, for the message.
    """
    if not stat.S_ISREG(mode):
        hint = "; use list_dir" if stat.S_ISDIR(mode) else ""
        raise NotRegularFileError(f"{shown!r} is {kind_of(mode)}; {tool} only works on regular files{hint}")


def open_regular(path: Path, shown: str, tool: str) -> io.BufferedReader:
    """Open ``path`` for binary reading, refusing without blocking if it is not a regular file.

    Raises:
        NotRegularFileError: ``path`` is a pipe, socket, device or directory.
        OSError: it cannot be opened (missing, permission denied…).
    """
    refuse_unless_regular(os.stat(path).st_mode, shown, tool)
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_NOCTTY", 0) | getattr(os, "O_CLOEXEC", 0)
    fd = os.open(path, flags)
    try:
        refuse_unless_regular(os.fstat(fd).st_mode, shown, tool)
        # What open(fd, "rb", buffering=...) builds, spelled out: typed as BufferedReader (callers peek).
        return io.BufferedReader(io.FileIO(fd, "rb"), READ_BUFFER_BYTES)  # the caller closes it
    except BaseException:
        os.close(fd)
        raise
