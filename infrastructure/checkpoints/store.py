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
import stat
import threading
import time
import uuid
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

from quorum.domain.checkpoints import Checkpoint, FileChange, FileState
from quorum.infrastructure.checkpoints.blobs import BlobStore, hash_file
from quorum.infrastructure.checkpoints.restore import Restorer
from quorum.infrastructure.checkpoints.scan import Exclusions, Signature, racy, signature, state_of, walk
from quorum.infrastructure.checkpoints.watch import DirectoryWatcher, WatchUnavailable

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
        self._watcher: DirectoryWatcher | None = None
        self._conn: sqlite3.Connection | None = None
        self._mutex = threading.RLock()

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
            rows = conn.execute("SELECT run_id FROM checkpoints GROUP BY run_id ORDER BY MAX(rowid)").fetchall()
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
        """Compare the workspace with the index; keep changed content; update the index; the changes.

        Walks everything the first time in a process, when another process wrote the index, and
        when the watcher is missing or lost events; otherwise looks only at what the watcher saw.
        """
        index, fresh = self._load(conn)
        dirty = None if fresh or self._watcher is None else self._watcher.changed()
        found = _Found(index, time.time_ns())
        if dirty is None or "" in dirty:
            self._walk_all(found)
        else:
            self._walk_dirty(found, dirty)
        found.changes.extend(FileChange(path=path, before=_state(index[path]), after=None) for path in found.gone)
        self._save(conn, index, found.updates, found.gone)
        return sorted(found.changes, key=lambda c: c.path)

    def _walk_all(self, found: _Found) -> None:
        if self._watcher is not None:
            self._watcher.close()
        self._watcher = _new_watcher()
        for entry in walk(self.workspace, self._exclusions, on_dir=self._watch):
            self._compare(found, *entry)
        found.gone = [path for path in found.index if path not in found.seen]

    def _walk_dirty(self, found: _Found, dirty: set[str]) -> None:
        root = str(self.workspace)
        for relative in sorted(dirty):
            if self._exclusions.covers(relative, root):
                continue
            absolute = os.path.join(root, relative)
            try:
                st = os.lstat(absolute)
            except (FileNotFoundError, NotADirectoryError):
                st = None
            was_dir = relative in found.index and found.index[relative][0] == "dir"
            if st is not None:
                self._compare(found, relative, absolute, st)
                if stat.S_ISDIR(st.st_mode):
                    for entry in walk(absolute, self._exclusions, relative + "/", self._watch):
                        self._compare(found, *entry)
            under = [p for p in found.index if p.startswith(relative + "/")] if was_dir or st is None else []
            found.gone.extend(p for p in (relative, *under) if p in found.index and p not in found.seen)
        found.gone = sorted(set(found.gone))

    def _watch(self, absolute: str, relative: str) -> None:
        if self._watcher is None:
            return
        try:
            self._watcher.watch(absolute, relative)
        except WatchUnavailable:
            self._watcher.close()
            self._watcher = None

    def _compare(self, found: _Found, relative: str, absolute: str, st: os.stat_result) -> None:
        sig = signature(st)
        if sig is None:
            return
        found.seen.add(relative)
        old = found.index.get(relative)
        if old is not None and old[:5] == sig:
            return
        state = state_of(absolute, sig, self._max_bytes, self._blobs.keep)
        if state is None:
            found.seen.discard(relative)
            return
        before = _state(old) if old is not None else None
        if before is None or not before.same_as(state):
            found.changes.append(FileChange(path=relative, before=before, after=state))
        found.updates.append((relative, _row(racy(sig, found.started), state)))

    def _load(self, conn: sqlite3.Connection) -> tuple[dict[str, Row], bool]:
        """The index, and whether it was read from disk now (first use, or another process wrote it)."""
        (generation,) = conn.execute("SELECT value FROM meta WHERE key = 'generation'").fetchone() or ("",)
        if self._index is None or generation != self._generation:
            rows = conn.execute("SELECT path, kind, size, mtime_ns, ino, mode, digest, target, oversize FROM files")
            self._index = {row[0]: row[1:] for row in rows}
            self._generation = generation
            return self._index, True
        return self._index, False

    def _save(
        self, conn: sqlite3.Connection, index: dict[str, Row], updates: list[tuple[str, Row]], gone: list[str]
    ) -> None:
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
        """The store's one connection, one thread at a time (kept open: closing a WAL database costs a checkpoint)."""
        with self._mutex:
            if self._conn is None:
                self._dir.mkdir(parents=True, exist_ok=True)
                conn = sqlite3.connect(
                    self._dir / "index.db", timeout=30.0, isolation_level=None, check_same_thread=False
                )
                conn.execute("PRAGMA journal_mode = WAL")
                conn.execute("PRAGMA synchronous = NORMAL")  # WAL: a commit does not wait for the disk
                conn.executescript(_SCHEMA)
                conn.execute("INSERT OR IGNORE INTO meta (key, value) VALUES ('workspace', ?)", (str(self.workspace),))
                self._conn = conn
            yield self._conn

    def close(self) -> None:
        """Close the database and the watcher (the store opens them again when used)."""
        with self._mutex:
            if self._conn is not None:
                self._conn.close()
                self._conn = None
            if self._watcher is not None:
                self._watcher.close()
                self._watcher = None

    @contextmanager
    def _locked(self) -> Iterator[sqlite3.Connection]:
        """The index, locked against other processes and threads, in one transaction."""
        self._dir.mkdir(parents=True, exist_ok=True)
        with self._mutex, open(self._dir / "lock", "a") as lock, self._connection() as conn:
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


@dataclass
class _Found:
    """What one scan found against ``index``: paths seen, changes, index rows to write, paths gone."""

    index: dict[str, Row]
    started: int
    seen: set[str] = field(default_factory=set)
    changes: list[FileChange] = field(default_factory=list)
    updates: list[tuple[str, Row]] = field(default_factory=list)
    gone: list[str] = field(default_factory=list)


def _new_watcher() -> DirectoryWatcher | None:
    try:
        return DirectoryWatcher()
    except WatchUnavailable:
        return None


def _row(sig: Signature, state: FileState) -> Row:
    return (*sig, state.digest, state.target, int(state.oversize))


def _state(row: Row) -> FileState:
    kind, size, _, _, mode, digest, target, oversize = row
    if kind == "dir":
        return FileState(kind="dir", mode=mode)
    if kind == "link":
        return FileState(kind="link", size=size, target=target)
    return FileState(kind="file", mode=mode, size=size, digest=digest, oversize=bool(oversize))
