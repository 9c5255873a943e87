"""Putting paths of a workspace back into recorded states, never writing through a symbolic link.

Order: paths to remove or whose kind changes are removed (files and links first, then
directories deepest first, only when empty); directories are made (shallowest first); files and
links are written (a file to a temporary name beside it, then renamed over, its mode set first);
directory modes are set last, deepest first (a read-only directory would refuse what goes in it).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from quorum.domain.checkpoints import FileState
from quorum.domain.errors import RunFailure
from quorum.infrastructure.checkpoints.blobs import BlobStore


class UnsafeRestore(RunFailure):
    """A path to restore leads outside the workspace, or through a symbolic link."""


class Restorer:
    """Restores paths under ``workspace`` from ``blobs``."""

    def __init__(self, workspace: Path, blobs: BlobStore) -> None:
        self._workspace = workspace
        self._blobs = blobs

    def restore(self, targets: Mapping[str, FileState | None]) -> None:
        """Put each path in ``targets`` in its state (None: absent); ``oversize`` targets are left alone.

        Raises:
            UnsafeRestore: a path is absolute, has ``..``, or its parent is a link.
            MissingBlob: content the store should have is gone.
        """
        wanted = {path: state for path, state in targets.items() if state is None or not state.oversize}
        for path in wanted:
            _check(path)
        deepest_first = sorted(wanted, key=lambda p: (-p.count("/"), p))
        for path in deepest_first:
            self._clear(path, wanted[path], directories=False)
        for path in deepest_first:
            self._clear(path, wanted[path], directories=True)
        for path in sorted(wanted, key=lambda p: (p.count("/"), p)):
            state = wanted[path]
            if state is not None:
                self._put(path, state)
        for path in deepest_first:
            state = wanted[path]
            if state is not None and state.kind == "dir":
                os.chmod(self._absolute(path), state.mode)

    def _absolute(self, path: str) -> str:
        return os.path.join(self._workspace, *PurePosixPath(path).parts)

    def _clear(self, path: str, state: FileState | None, *, directories: bool) -> None:
        """Remove ``path`` when it must go or change kind (files and links, or else empty directories)."""
        absolute = self._absolute(path)
        try:
            st = os.lstat(absolute)
        except (FileNotFoundError, NotADirectoryError):
            return
        is_dir = stat.S_ISDIR(st.st_mode)
        if is_dir != directories:
            return
        kind_now = "dir" if is_dir else ("link" if stat.S_ISLNK(st.st_mode) else "file")
        keeps_kind = state is not None and state.kind == kind_now
        if keeps_kind:
            return
        self._safe_parent(path)
        if is_dir:
            with contextlib.suppress(OSError):  # not empty: something the run did not make is in it; it stays
                os.rmdir(absolute)
        else:
            os.unlink(absolute)

    def _put(self, path: str, state: FileState) -> None:
        self._safe_parent(path, make=True)
        absolute = self._absolute(path)
        if state.kind == "dir":
            if not os.path.isdir(absolute) or os.path.islink(absolute):
                os.mkdir(absolute, 0o700)
            return
        if state.kind == "link":
            assert state.target is not None
            if os.path.lexists(absolute):
                os.unlink(absolute)
            os.symlink(state.target, absolute)
            return
        assert state.digest is not None
        data = self._blobs.read(state.digest)
        fd, temporary = tempfile.mkstemp(dir=os.path.dirname(absolute), prefix=".quorum-undo-")
        try:
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.chmod(temporary, state.mode)
            os.replace(temporary, absolute)
        except BaseException:
            if os.path.lexists(temporary):
                os.unlink(temporary)
            raise

    def _safe_parent(self, path: str, *, make: bool = False) -> None:
        """Check each directory above ``path`` is a real directory in the workspace (made when missing and ``make``)."""
        current = str(self._workspace)
        for part in PurePosixPath(path).parts[:-1]:
            current = os.path.join(current, part)
            try:
                st = os.lstat(current)
            except FileNotFoundError:
                if not make:
                    return
                os.mkdir(current, 0o755)
                continue
            if not stat.S_ISDIR(st.st_mode):
                raise UnsafeRestore(
                    f"cannot restore {path}: {os.path.relpath(current, self._workspace)} is not a directory"
                )


def _check(path: str) -> None:
    parts = PurePosixPath(path).parts
    if not parts or path.startswith("/") or ".." in parts or "." in parts:
        raise UnsafeRestore(f"refusing to restore {path!r}: not a path inside the workspace")
