"""``FileCheckpointStore``: the ``CheckpointStore`` of one workspace, in Quorum's data dir.

Layout under the store's ``root`` (``[checkpoints] path``, default ``<data dir>/checkpoints``)::

    blobs/ab/abcdef...              file contents by SHA-256, shared by every workspace
    workspaces/<key>/index.db       SQLite: the stat index (the last recorded state of every
                                    path) and the checkpoints (each the changes of one batch)
    workspaces/<key>/lock           held while scanning or restoring (processes take turns)

A checkpoint stores only what changed (each changed path before and after), so the store grows by
the changed bytes; the first recording of a workspace keeps the content of every file once.
"""

from __future__ import annotations

import fcntl
import hashlib
import json
import os
import sqlite3
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path

from quorum.domain.checkpoints import Checkpoint, FileChange, FileState
from quorum.infrastructure.checkpoints.blobs import BlobStore, hash_file
from quorum.infrastructure.checkpoints.restore import Restorer
from quorum.infrastructure.checkpoints.scan import Exclusions, Signature, racy, signature, state_of, walk

Row = tuple[str, int, int, int, int, str | None, str | None, int]
"""An index row: the signature's five fields, then digest, link target, oversize."""

_SCHEMA = """
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE IF NOT EXISTS files (
    path TEXT PRIMARY KEY, kind TEXT NOT NULL, size INTEGER NOT NULL, mtime_ns INTEGER NOT NULL,
    ino INTEGER NOT NULL, mode INTEGER NOT NULL, digest TEXT, target TEXT, oversize INTEGER NOT NULL
);
CREATE TABLE IF NOT EXISTS checkpoints (
    id TEXT PRIMARY KEY, run_id TEXT NOT NULL, seq INTEGER NOT NULL, call_ids TEXT NOT NULL,
    at TEXT NOT NULL, changes TEXT NOT NULL
);
CREATE INDEX IF NOT EXISTS checkpoints_run ON checkpoints (run_id, seq);
"""


def workspace_key(workspace: Path) -> str:
    """The folder name of ``workspace``'s index: a digest of its resolved path."""
    return hashlib.sha256(str(workspace.resolve()).encode()).hexdigest()[:20]


class FileCheckpointStore:
    """Checkpoints of the files under ``workspace``, kept under ``root``.

    ``exclude``: glob patterns never recorded (``Exclusions``); ``skip``: absolute paths never
    recorded (the run log, the store itself when inside the workspace); files over ``max_bytes``
    are recorded ``oversize``, without content. Thread- and process-safe.
    """

    def __init__(
        self,
        root: Path,
        workspace: Path,
        *,
        exclude: Sequence[str] = (),
        max_bytes: int = 50 * 1024 * 1024,
        skip: Sequence[Path] = (),
    ) -> None:
        self.workspace = workspace.resolve()
        self._dir = root / "workspaces" / workspace_key(self.workspace)
        self._blobs = BlobStore(root / "blobs")
        self._exclusions = Exclusions(exclude, (*skip, root))
        self._max_bytes = max_bytes
        self._index: dict[str, Row] | None = None
        self._generation = ""

    def __repr__(self) -> str:
        return f"FileCheckpointStore({str(self.workspace)!r})"

    # -- the port

    def baseline(self, run_id: str) -> None:
        with self._locked() as conn:
            self._scan(conn)

    def record(self, run_id: str, call_ids: Sequence[str]) -> Checkpoint:
        with self._locked() as conn:
            changes = self._scan(conn)
            (seq,) = conn.execute("SELECT COUNT(*) FROM checkpoints WHERE run_id = ?", (run_id,)).fetchone()
            checkpoint = Checkpoint(
                checkpoint_id=uuid.uuid4().hex[:16],
                run_id=run_id,
                seq=seq + 1,
                call_ids=tuple(call_ids),
                changes=tuple(changes),
                at=datetime.now(UTC),
            )
            conn.execute(
                "INSERT INTO checkpoints (id, run_id, seq, call_ids, at, changes) VALUES (?, ?, ?, ?, ?, ?)",
                (
                    checkpoint.checkpoint_id,
                    run_id,
                    checkpoint.seq,
                    json.dumps(list(call_ids)),
                    checkpoint.at.isoformat(),
                    json.dumps([c.model_dump(mode="json") for c in changes]),
                ),
            )
            return checkpoint

    def runs(self) -> list[str]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT run_id FROM checkpoints GROUP BY run_id ORDER BY MAX(rowid)"
            ).fetchall()
        return [run_id for (run_id,) in rows]

    def checkpoints(self, run_id: str) -> list[Checkpoint]:
        with self._connection() as conn:
            rows = conn.execute(
                "SELECT id, seq, call_ids, at, changes FROM checkpoints WHERE run_id = ? ORDER BY seq", (run_id,)
            ).fetchall()
        return [
            Checkpoint(
                checkpoint_id=cid,
                run_id=run_id,
                seq=seq,
                call_ids=tuple(json.loads(calls)),
                at=datetime.fromisoformat(at),
                changes=tuple(FileChange.model_validate(c) for c in json.loads(changes)),
            )
            for cid, seq, calls, at, changes in rows
        ]

    def current(self, paths: Sequence[str]) -> dict[str, FileState | None]:
        return {path: self._now(path) for path in paths}

    def content(self, path: str, state: FileState | None) -> bytes | None:
        if state is None:
            now = self._now(path)
            if now is None or now.kind != "file" or now.oversize:
                return None
            try:
                return (self.workspace / path).read_bytes()
            except OSError:
                return None
        if state.kind != "file" or state.digest is None:
            return None
        return self._blobs.read(state.digest)

    def restore(self, targets: Mapping[str, FileState | None]) -> None:
        with self._locked():
            Restorer(self.workspace, self._blobs).restore(targets)

    # -- scanning

    def _now(self, path: str) -> FileState | None:
        absolute = os.path.join(self.workspace, path)
        try:
            sig = signature(os.lstat(absolute))
        except (FileNotFoundError, NotADirectoryError):
            return None
        if sig is None:
            return None
        return state_of(absolute, sig, self._max_bytes, hash_file)

    def _scan(self, conn: sqlite3.Connection) -> list[FileChange]:
        """Walk the workspace against the index; keep changed content; update the index; the changes."""
        index = self._load(conn)
        started = time.time_ns()
        seen: set[str] = set()
        changes: list[FileChange] = []
        updates: list[tuple[str, Row]] = []
        for relative, absolute, st in walk(self.workspace, self._exclusions):
            sig = signature(st)
            if sig is None:
                continue
            seen.add(relative)
            old = index.get(relative)
            if old is not None and old[:5] == sig:
                continue
            state = state_of(absolute, sig, self._max_bytes, self._blobs.keep)
            if state is None:
                seen.discard(relative)
                continue
            before = _state(old) if old is not None else None
            if before is None or not before.same_as(state):
                changes.append(FileChange(path=relative, before=before, after=state))
            updates.append((relative, _row(racy(sig, started), state)))
        gone = [path for path in index if path not in seen]
        changes.extend(FileChange(path=path, before=_state(index[path]), after=None) for path in gone)
        self._save(conn, index, updates, gone)
        return sorted(changes, key=lambda c: c.path)

    def _load(self, conn: sqlite3.Connection) -> dict[str, Row]:
        (generation,) = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone() or ("",)
        if self._index is None or generation != self._generation:
            rows = conn.execute("SELECT path, kind, size, mtime_ns, ino, mode, digest, target, oversize FROM files")
            self._index = {row[0]: row[1:] for row in rows}
            self._generation = generation
        return self._index

    def _save(self, conn: sqlite3.Connection, index: dict[str, Row], updates: list[tuple[str, Row]], gone: list[str]) -> None:
        if not updates and not gone:
            return
        conn.executemany(
            "INSERT OR REPLACE INTO files (path, kind, size, mtime_ns, ino, mode, digest, target, oversize)"
            " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(path, *row) for path, row in updates],
        )
        conn.executemany("DELETE FROM files WHERE path = ?", [(path,) for path in gone])
        self._generation = uuid.uuid4().hex
        conn.execute("INSERT OR REPLACE INTO meta (key, value) VALUES ('generation', ?)", (self._generation,))
        for path, row in updates:
            index[path] = row
        for path in gone:
            del index[path]

    # -- the database

    @contextmanager
    def _connection(self) -> Iterator[sqlite3.Connection]:
        self._dir.mkdir(parents=True, exist_ok=True)
        conn = sqlite3.connect(self._dir / "index.db", timeout=30.0, isolation_level=None)
        try:
            conn.executescript(_SCHEMA)
            conn.execute(
                "INSERT OR IGNORE INTO meta (key, value) VALUES ('workspace', ?)", (str(self.workspace),)
            )
            yield conn
        finally:
            conn.close()

    @contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        """The index, locked against other processes and threads, in one transaction."""
        self._dir.mkdir(parents=True, exist_ok=True)
        with open(self._dir / "lock", "a") as lock, self._connection() as conn:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                conn.execute("BEGIN IMMEDIATE")
                try:
                    yield conn
                except BaseException:
                    conn.execute("ROLLBACK")
                    self._index = None
                    raise
                conn.execute("COMMIT")
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)


def _row(sig: Signature, state: FileState) -> Row:
    return (*sig, state.digest, state.target, int(state.oversize))


def _state(row: Row) -> FileState:
    kind, size, _, _, mode, digest, target, oversize = row
    if kind == "dir":
        return FileState(kind="dir", mode=mode)
    if kind == "link":
        return FileState(kind="link", size=size, target=target)
    return FileState(kind="file", mode=mode, size=size, digest=digest, oversize=bool(oversize))
