"""The trusted workspaces: one JSON file in the user's data dir, keyed by directory and fingerprint.

A workspace is trusted for the exact contents of its configuration files when it was trusted
(``fingerprint``: sha256 over each file's name and bytes): a changed, added or removed file makes
it untrusted again, as a changed MCP server's tools fail their pin.
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from quorum.infrastructure.config.json_file import read_json

TRUST_FILE = "trusted-workspaces.json"
TRUST_ENV = "QUORUM_TRUST_WORKSPACE"
"""Set to 1: this invocation trusts its workspace's configuration files (the CI switch)."""


def fingerprint(files: Sequence[Path], base: Path | None = None) -> str:
    """sha256 over each file's name (relative to ``base``, else its own name) and contents, in order.

    A missing file counts as absent; a symbolic link by its target too (where it points, then
    what it points at); only regular files are read (a FIFO or ``/dev/zero`` would never end),
    in blocks (a large file is hashed, not held).
    """
    digest = hashlib.sha256()
    for path in files:
        name = os.path.relpath(path, base) if base is not None else path.name
        digest.update(name.encode("utf-8", "surrogateescape") + b"\0")
        if path.is_symlink():
            digest.update(b"link\0" + os.fsencode(os.readlink(path)) + b"\0")
        _contents(digest, path)
    return "sha256:" + digest.hexdigest()


def _contents(digest: Any, path: Path) -> None:
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            digest.update(b"dir\0" if stat.S_ISDIR(info.st_mode) else b"special\0")
            return
        with path.open("rb") as file:
            digest.update(str(info.st_size).encode() + b"\0")
            while block := file.read(1 << 20):
                digest.update(block)
    except OSError:
        digest.update(b"absent\0")


@dataclass(frozen=True)
class TrustEntry:
    """One trusted workspace: its resolved directory, the fingerprint trusted and when."""

    directory: str
    fingerprint: str
    trusted_at: str


class TrustStore:
    """The trusted workspaces stored at ``path`` (created on the first ``trust``)."""

    def __init__(self, path: Path) -> None:
        self.path = path

    def is_trusted(self, directory: Path, files: Sequence[Path]) -> bool:
        """Whether ``directory`` is trusted with ``files`` exactly as they are now."""
        entry = self._read().get(str(directory.resolve()))
        return entry is not None and entry.get("fingerprint") == fingerprint(files, directory.resolve())

    def trust(self, directory: Path, files: Sequence[Path]) -> TrustEntry:
        """Trust ``directory`` with ``files`` as they are now (replacing an earlier entry)."""
        entries = self._read()
        key = str(directory.resolve())
        entry = TrustEntry(
            key, fingerprint(files, directory.resolve()), datetime.now(UTC).isoformat(timespec="seconds")
        )
        entries[key] = {"fingerprint": entry.fingerprint, "trusted_at": entry.trusted_at}
        self._write(entries)
        return entry

    def revoke(self, directory: Path) -> bool:
        """Forget ``directory``; False when it was not trusted."""
        entries = self._read()
        if entries.pop(str(directory.resolve()), None) is None:
            return False
        self._write(entries)
        return True

    def entries(self) -> list[TrustEntry]:
        """Every trusted workspace, sorted by directory."""
        return [
            TrustEntry(key, str(value.get("fingerprint", "")), str(value.get("trusted_at", "")))
            for key, value in sorted(self._read().items())
        ]

    def _read(self) -> dict[str, dict[str, Any]]:
        data = read_json(self.path, "remove it and trust again")
        workspaces = data.get("workspaces") if isinstance(data, dict) else None
        if not isinstance(workspaces, dict):
            return {}
        return {key: value for key, value in workspaces.items() if isinstance(value, dict)}

    def _write(self, entries: dict[str, dict[str, Any]]) -> None:
        """Write the file atomically (a temporary file replaced), readable by the user only."""
        self.path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        temporary = self.path.with_name(f"{self.path.name}.{os.getpid()}.tmp")
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w", encoding="utf-8") as file:
            json.dump({"version": 1, "workspaces": entries}, file, indent=2, sort_keys=True)
            file.flush()
            os.fsync(file.fileno())
        os.replace(temporary, self.path)
