"""Reading a file a checkout brings, as if it were hostile: bounded, regular files only, inside a root."""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Read:
    """What ``read_inside`` read: the text (undecodable bytes replaced), whether it was cut at the limit, its bytes."""

    text: str
    cut: bool
    size: int = 0


class Unreadable(Exception):
    """A file ``read_inside`` would not read; the message says why (for ``quorum doctor``)."""


def read_inside(path: Path, root: Path | None, limit: int) -> Read:
    """At most ``limit`` bytes of ``path``, a regular file whose real path is inside ``root``.

    A symbolic link is followed only when it ends inside ``root`` (None: anywhere, for the user's
    own files). FIFOs, devices and sockets are never opened for reading: a FIFO would block and
    ``/dev/zero`` never end; the file is opened non-blocking and checked again once open, so a
    file swapped for a FIFO in between is refused too.

    Raises:
        Unreadable: the file is missing, leads out of ``root``, or is not a regular file.
    """
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError) as error:  # missing, a dangling link, a link loop
        raise Unreadable(f"{path.name} cannot be read ({type(error).__name__})") from None
    if root is not None and not real.is_relative_to(root.resolve()):
        raise Unreadable(f"{path.name} links outside the repository ({real}); not read")
    try:
        if not stat.S_ISREG(os.stat(real).st_mode):
            raise Unreadable(f"{path.name} is not a regular file; not read")
        descriptor = os.open(real, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0))
    except OSError as error:
        raise Unreadable(f"{path.name} cannot be read ({error.strerror})") from None
    with os.fdopen(descriptor, "rb") as file:
        if not stat.S_ISREG(os.fstat(descriptor).st_mode):
            raise Unreadable(f"{path.name} is not a regular file; not read")
        data = file.read(limit + 1)
    kept = data[:limit]
    return Read(kept.decode("utf-8", "replace"), cut=len(data) > limit, size=len(kept))
