"""Walking a workspace cheaply: one ``lstat`` per path, hashing only what the stat index says changed.

A path's *signature* is (kind, size, mtime_ns, inode, mode). When it equals the one recorded at
the last scan, the recorded state is reused without reading the file; otherwise the file is
hashed (and its content kept in the blob store). A file modified within ``RACY_NS`` of a scan may
change again without its signature changing (coarse timestamps), so its signature is recorded as
unknown and it is hashed again next time (git's "racily clean" entries).
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from quorum.domain.checkpoints import FileKind, FileState

RACY_NS = 2_000_000_000
"""Files modified less than this before a scan (2 s: the coarsest common timestamp) are hashed again next scan."""

Signature = tuple[str, int, int, int, int]
"""(kind, size, mtime_ns, inode, mode) of a path as ``lstat`` saw it; mtime_ns -1: hash it next time."""

ALWAYS_LEFT_OUT = (".git",)


@dataclass(frozen=True)
class Seen:
    """One path found by a scan: its signature and its state."""

    signature: Signature
    state: FileState


class Exclusions:
    """Which workspace paths a scan leaves out: ``.git``, the ``exclude`` globs, and ``skip`` (absolute paths).

    A pattern without ``/`` matches any path component's name (``node_modules``, ``*.log``); one
    with ``/`` matches the whole relative path (``build/*``). A directory left out takes its
    contents with it.
    """

    def __init__(self, patterns: Sequence[str], skip: Sequence[Path] = ()) -> None:
        self._names = tuple(p for p in patterns if "/" not in p)
        self._paths = tuple(p for p in patterns if "/" in p)
        self._skip = frozenset(os.path.abspath(p) for p in skip)

    def covers(self, relative: str, root: str) -> bool:
        """True when ``relative`` or a directory above it is left out (``root``: the workspace's absolute path)."""
        parts = relative.split("/")
        for depth in range(1, len(parts) + 1):
            above = "/".join(parts[:depth])
            if self.left_out(above, parts[depth - 1], os.path.join(root, *parts[:depth])):
                return True
        return False

    def left_out(self, relative: str, name: str, absolute: str) -> bool:
        if name in ALWAYS_LEFT_OUT or absolute in self._skip:
            return True
        return any(fnmatch.fnmatchcase(name, p) for p in self._names) or any(
            fnmatch.fnmatchcase(relative, p) for p in self._paths
        )


def signature(st: os.stat_result) -> Signature | None:
    """The signature of a path from its ``lstat``; None for what is not recorded (fifo, socket, device)."""
    mode = st.st_mode
    if stat.S_ISREG(mode):
        kind = "file"
    elif stat.S_ISLNK(mode):
        kind = "link"
    elif stat.S_ISDIR(mode):
        return ("dir", 0, 0, 0, stat.S_IMODE(mode))  # a directory's state is its mode alone
    else:
        return None
    return (kind, st.st_size, st.st_mtime_ns, st.st_ino, stat.S_IMODE(mode))


def walk(
    root: Path | str,
    exclusions: Exclusions,
    prefix: str = "",
    on_dir: Callable[[str, str], None] | None = None,
) -> Iterator[tuple[str, str, os.stat_result]]:
    """(relative path, absolute path, lstat) of each path under the directory ``root`` not left out; links not followed.

    ``prefix`` is ``root``'s relative path with a trailing ``/`` (``""``: the workspace);
    ``on_dir(absolute, relative)`` is called for each directory before its entries are read.
    """
    stack = [(prefix, str(root))]
    while stack:
        prefix, directory = stack.pop()
        if on_dir is not None:
            on_dir(directory, prefix.rstrip("/"))
        try:
            entries = list(os.scandir(directory))
        except (FileNotFoundError, NotADirectoryError, PermissionError):
            continue
        for entry in entries:
            relative = prefix + entry.name
            if exclusions.left_out(relative, entry.name, entry.path):
                continue
            try:
                st = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            yield relative, entry.path, st
            if stat.S_ISDIR(st.st_mode):
                stack.append((relative + "/", entry.path))


def racy(sig: Signature, scan_started_ns: int) -> Signature:
    """``sig``, marked to be hashed again next scan when the file changed too close to the scan."""
    if sig[0] != "dir" and sig[2] >= scan_started_ns - RACY_NS:
        return (sig[0], sig[1], -1, sig[3], sig[4])
    return sig


def state_of(absolute: str, sig: Signature, max_bytes: int, keep: Callable[[str], str | None]) -> FileState | None:
    """The state of the path ``absolute`` whose signature is ``sig``; ``keep`` hashes a file (and stores it).

    None when the path vanished meanwhile.
    """
    kind: FileKind = sig[0]  # type: ignore[assignment]
    mode = sig[4]
    if kind == "dir":
        return FileState(kind="dir", mode=mode)
    if kind == "link":
        try:
            target = os.readlink(absolute)
        except OSError:
            return None
        return FileState(kind="link", size=len(target), target=target)
    if sig[1] > max_bytes:
        return FileState(kind="file", mode=mode, size=sig[1], oversize=True)
    digest = keep(absolute)
    if digest is None:
        return None
    return FileState(kind="file", mode=mode, size=sig[1], digest=digest)
