"""Content-addressed blobs: each distinct file content stored once, under its SHA-256."""

from __future__ import annotations

import hashlib
import os
import tempfile
from pathlib import Path

from quorum.domain.errors import RunFailure


class MissingBlob(RunFailure):
    """A checkpoint names content the store no longer has (its blob was deleted by hand)."""


class BlobStore:
    """Blobs under ``root``: ``root/ab/abcdef...`` for the digest ``abcdef...``; written once, never changed."""

    def __init__(self, root: Path) -> None:
        self._root = root

    def path(self, digest: str) -> Path:
        return self._root / digest[:2] / digest

    def keep(self, absolute: str) -> str | None:
        """Hash the file at ``absolute``, store its content unless stored already; its digest (None: it vanished)."""
        try:
            with open(absolute, "rb", opener=_no_follow) as file:
                data = file.read()
        except (FileNotFoundError, IsADirectoryError, OSError):
            return None
        digest = hashlib.sha256(data).hexdigest()
        target = self.path(digest)
        if not target.exists():
            target.parent.mkdir(parents=True, exist_ok=True)
            fd, temporary = tempfile.mkstemp(dir=target.parent, prefix=".tmp-")
            with os.fdopen(fd, "wb") as out:
                out.write(data)
            os.replace(temporary, target)
        return digest

    def read(self, digest: str) -> bytes:
        """The content stored under ``digest``.

        Raises:
            MissingBlob: it is not in the store.
        """
        try:
            return self.path(digest).read_bytes()
        except FileNotFoundError:
            raise MissingBlob(f"the checkpoint store has lost the content {digest[:12]} (deleted by hand?)") from None


def hash_file(absolute: str) -> str | None:
    """The SHA-256 of the file at ``absolute`` (not following a link), None when it cannot be read."""
    try:
        with open(absolute, "rb", opener=_no_follow) as file:
            return hashlib.file_digest(file, "sha256").hexdigest()
    except OSError:
        return None


def _no_follow(path: str, flags: int) -> int:
    return os.open(path, flags | os.O_NOFOLLOW)
