"""Replacing a file's content atomically: a temporary file beside it, fsync, then ``os.replace``.

Writing in place has two hazards. A crash (or a full disk) halfway leaves a half-written file.
And writing through the name writes the inode, so a hard link planted in the workspace towards a
file outside it carries the write out of the workspace. Renaming a new file over the name fixes
both: readers see the old content or the new, never a mix, and only this name gets the new
inode; other links keep the old content.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Replaced:
    """What ``replace_file`` did.

    Attributes:
        existed: whether the name held a file before.
        other_links: how many other hard links the old file had; they keep the old content.
    """

    existed: bool
    other_links: int


def _temporary_beside(path: Path) -> tuple[Path, int]:
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0) | getattr(os, "O_NOFOLLOW", 0)
    for _ in range(16):
        candidate = path.with_name(f".{path.name}.quorum-{secrets.token_hex(4)}.tmp")
        try:
            # 0o666 lets the umask decide a new file's mode, as a plain open would.
            return candidate, os.open(candidate, flags, 0o666)
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")


def replace_file(path: Path, data: bytes, old: os.stat_result | None) -> Replaced:
    """Give ``path`` the content ``data`` atomically, keeping the old file's mode (and owner if allowed).

    Args:
        path: the real path (symlinks already resolved) of a regular file or of a new file.
        data: the new content.
        old: ``os.lstat(path)`` when the file exists, else ``None``.

    Raises:
        OSError: the temporary file could not be created or written (the old file is untouched).
    """
    temporary, fd = _temporary_beside(path)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view) :]
            if old is not None:
                os.fchmod(fd, stat.S_IMODE(old.st_mode))
                if (old.st_uid, old.st_gid) != (os.getuid(), os.getgid()):
                    with contextlib.suppress(OSError):  # only root may give a file away; keep ours then
                        os.fchown(fd, old.st_uid, old.st_gid)
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(temporary, path)
    except BaseException:
        with contextlib.suppress(OSError):
            temporary.unlink()
        raise
    _sync_directory(path.parent)
    return Replaced(existed=old is not None, other_links=max(old.st_nlink - 1, 0) if old else 0)


def _sync_directory(directory: Path) -> None:
    """Make the rename durable; best effort (not every file system lets a directory be fsynced)."""
    with contextlib.suppress(OSError):
        fd = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
        try:
            os.fsync(fd)
        finally:
            os.close(fd)
