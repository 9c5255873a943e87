"""SqliteRunStore: the run log in one SQLite file, shared safely by concurrent runs.

Durability: WAL journal with ``synchronous=NORMAL``. Every ``append_events`` is one committed
transaction, and a commit in WAL mode has reached the OS (the WAL file) before it returns, so a
process killed at any point, SIGKILL included, loses nothing it committed; only a power loss may
drop the last few transactions, and the file stays consistent even then. Writers wait for each other
(``busy_timeout``) and take the write lock up front (``BEGIN IMMEDIATE``) so no transaction has to be
retried halfway.
"""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from pydantic import TypeAdapter

from quorum.application.history import recorded_conversation
from quorum.application.ports.approvals import CallDecision, PendingCall
from quorum.application.ports.run_store import (
    INTERRUPTED,
    RecordedEvent,
    RunHeader,
    RunSummary,
    SearchHit,
    StoreStats,
)
from quorum.domain.errors import ConfigurationError, RunFailure, UsageError
from quorum.domain.events import RunEvent
from quorum.domain.messages import Message
from quorum.domain.responses import RunUsage
from quorum.infrastructure.storage import approvals, queries
from quorum.infrastructure.storage.schema import migrate
from quorum.infrastructure.storage.writer import write_events

_EVENT: TypeAdapter[RunEvent] = TypeAdapter(RunEvent)

WAL_AUTOCHECKPOINT_PAGES = 8192
WAL_SIZE_LIMIT_BYTES = 8 * 1024 * 1024
"""The WAL is truncated back to this size after a checkpoint."""

_SUMMARY = """
SELECT r.id, r.task, r.model, r.workspace, r.config_digest, r.parent_run_id, r.started_at, r.ended_at,
       r.stop_reason, r.detail, r.output, r.turns, r.input_tokens, r.output_tokens,
       r.reviewer_input_tokens, r.reviewer_output_tokens, r.cost,
       (SELECT COUNT(*) FROM events e WHERE e.run_id = r.id AND e.type = 'tool_call'), r.engine
FROM runs r
"""


def _time(value: float) -> datetime:
    return datetime.fromtimestamp(value, UTC)


def _optional_time(value: float | None) -> datetime | None:
    return None if value is None else _time(value)


class SqliteRunStore:
    """A ``RunStore`` and ``PendingApprovals`` over the SQLite file at ``path`` (created on first use).

    Construction is free: the file is opened, and migrated, by the first call that needs it.
    Thread-safe (one connection behind a lock); processes share the file through SQLite's locks.
    """

    def __init__(self, path: Path, *, busy_timeout: float = 10.0) -> None:
        self.path = Path(path)
        self._busy_timeout = busy_timeout
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._turns: dict[str, int] = {}  # current turn of runs this store writes

    def __repr__(self) -> str:
        return f"SqliteRunStore({str(self.path)!r})"

    # -- connection -----------------------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        source = str(self.path)
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            conn = sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise ConfigurationError(f"cannot open the run log: {error}", source=source) from None
        try:
            self._enable_wal(conn)
            conn.execute("PRAGMA synchronous = NORMAL")
            # Checkpoints (the only fsyncs) copy each page once however often the WAL holds it, so
            # fewer of them cost less in all: every 8192 pages instead of SQLite's 1000.
            conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")
            conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT_BYTES}")
            conn.execute("PRAGMA foreign_keys = ON")
            migrate(conn, source)
        except sqlite3.DatabaseError as error:
            conn.close()
            raise ConfigurationError(f"cannot use the run log: {error}", source=source) from None
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _enable_wal(self, conn: sqlite3.Connection) -> None:
        """Switch the file to WAL (once per file; it persists).

        SQLite does not call the busy handler for this switch, so when several processes create
        the log at once the losers are retried here, within the same busy timeout.
        """
        deadline = time.monotonic() + self._busy_timeout
        while True:
            try:
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.005)

    @contextmanager
    def _read(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connect()
            try:
                yield conn
            except sqlite3.Error as error:
                raise RunFailure(f"run log {self.path}: {error}") from None

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        with self._lock:
            conn = self._connect()
            try:
                conn.execute("BEGIN IMMEDIATE")
            except sqlite3.Error as error:
                raise RunFailure(f"run log {self.path}: {error}") from None
            try:
                yield conn
                conn.execute("COMMIT")
            except BaseException as error:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                if isinstance(error, sqlite3.IntegrityError):
                    raise UsageError(f"run log {self.path}: {error}") from None
                if isinstance(error, sqlite3.Error):
                    raise RunFailure(f"run log {self.path}: {error}") from None
                raise

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- writing --------------------------------------------------------------------------------

    def start_run(self, header: RunHeader) -> None:
        with self._write() as conn:
            conn.execute(
                "INSERT INTO runs (id, task, model, workspace, config_digest, parent_run_id, started_at, engine)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?)",
                (
                    header.run_id,
                    header.task,
                    header.model,
                    header.workspace,
                    header.config_digest,
                    header.parent_run_id,
                    header.started_at.timestamp(),
                    _engine(header.engine),
                ),
            )
        self._turns[header.run_id] = 0

    def append_events(self, run_id: str, events: Sequence[RecordedEvent]) -> None:
        if not events:
            return
        with self._write() as conn:
            turn = self._turns.get(run_id)
            if turn is None:
                row = conn.execute("SELECT turns FROM runs WHERE id = ?", (run_id,)).fetchone()
                if row is None:
                    raise UsageError(f"run log {self.path}: no run {run_id!r} was started")
                turn = row[0]
            self._turns[run_id] = write_events(conn, run_id, turn, events)

    # -- reading --------------------------------------------------------------------------------

    def list_runs(
        self,
        limit: int = 20,
        *,
        model: str | None = None,
        since: datetime | None = None,
        text: str | None = None,
    ) -> list[RunSummary]:
        where: list[str] = []
        values: list[Any] = []
        if model:
            where.append("r.model LIKE ? ESCAPE '\\'")
            values.append(queries.like(model))
        if since is not None:
            where.append("r.started_at >= ?")
            values.append(since.timestamp())
        if text:
            where.append(
                "(r.task LIKE ?1 ESCAPE '\\' OR r.output LIKE ?1 ESCAPE '\\' OR EXISTS"
                " (SELECT 1 FROM events e WHERE e.run_id = r.id AND e.data LIKE ?1 ESCAPE '\\'))".replace(
                    "?1", f"?{len(values) + 1}"
                )
            )
            values.append(queries.like(text))
        clause = (" WHERE " + " AND ".join(where)) if where else ""
        with self._read() as conn:
            rows = conn.execute(
                _SUMMARY + clause + f" ORDER BY r.started_at DESC, r.rowid DESC LIMIT ?{len(values) + 1}",
                (*values, limit),
            )
            return [self._summary(row) for row in rows.fetchall()]

    def match_run_ids(self, prefix: str, limit: int = 10) -> list[str]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id FROM runs WHERE substr(id, 1, ?) = ? ORDER BY started_at DESC, rowid DESC LIMIT ?",
                (len(prefix), prefix, limit),
            )
            return [row[0] for row in rows.fetchall()]

    def delete_runs(self, run_ids: Sequence[str]) -> int:
        ids = list(dict.fromkeys(run_ids))
        if not ids:
            return 0
        marks = ", ".join("?" * len(ids))
        with self._write() as conn:
            conn.execute(f"UPDATE runs SET parent_run_id = NULL WHERE parent_run_id IN ({marks})", ids)
            conn.execute(f"DELETE FROM events WHERE run_id IN ({marks})", ids)
            conn.execute(f"DELETE FROM decisions WHERE run_id IN ({marks})", ids)
            conn.execute(f"DELETE FROM payloads WHERE run_id IN ({marks})", ids)
            deleted = conn.execute(f"DELETE FROM runs WHERE id IN ({marks})", ids).rowcount
        for run_id in ids:
            self._turns.pop(run_id, None)
        return int(deleted)

    def get_run(self, run_id: str) -> RunSummary | None:
        with self._read() as conn:
            row = conn.execute(_SUMMARY + " WHERE r.id = ?", (run_id,)).fetchone()
            return None if row is None else self._summary(row)

    def last_run_id(self) -> str | None:
        with self._read() as conn:
            row = conn.execute("SELECT id FROM runs ORDER BY started_at DESC, rowid DESC LIMIT 1").fetchone()
            return None if row is None else row[0]

    def load_events(self, run_id: str) -> list[RecordedEvent]:
        with self._read() as conn:
            rows = conn.execute("SELECT seq, at, data FROM events WHERE run_id = ? ORDER BY seq", (run_id,))
            return [
                RecordedEvent(seq=seq, at=_time(at), event=_EVENT.validate_json(data))
                for seq, at, data in rows.fetchall()
            ]

    def load_history(self, run_id: str) -> list[Message]:
        history = recorded_conversation(self, run_id)
        if history is None:
            raise UsageError(f"no run {run_id!r} in the run log {self.path}")
        return history

    def pending(self, run_id: str | None = None) -> list[PendingCall]:
        with self._read() as conn:
            return approvals.pending(conn, run_id)

    def put_payload(self, run_id: str, key: str, data: str) -> None:
        """Keep ``data`` under ``(run_id, key)`` (a large tool output of a Temporal run); a repeated put is ignored."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO payloads (run_id, key, data) VALUES (?, ?, ?) ON CONFLICT (run_id, key) DO NOTHING",
                (run_id, key, data),
            )

    def get_payload(self, run_id: str, key: str) -> str | None:
        """The data kept under ``(run_id, key)``, None when there is none."""
        with self._read() as conn:
            row = conn.execute("SELECT data FROM payloads WHERE run_id = ? AND key = ?", (run_id, key)).fetchone()
        return None if row is None else str(row[0])

    def claim(self, run_id: str, decisions: Sequence[CallDecision]) -> None:
        with self._write() as conn:
            approvals.claim(conn, run_id, decisions)

    def search(self, text: str, limit: int = 50) -> list[SearchHit]:
        with self._read() as conn:
            return queries.search(conn, text, limit)

    def stats(self) -> StoreStats:
        with self._read() as conn:
            return queries.stats(conn)

    @staticmethod
    def _summary(row: tuple[Any, ...]) -> RunSummary:
        (run_id, task, model, workspace, digest, parent, started, ended, stop, detail, output, turns,
         input_tokens, output_tokens, reviewer_input_tokens, reviewer_output_tokens, cost,
         tool_calls, engine) = row  # fmt: skip
        return RunSummary(
            engine=engine or "local",
            run_id=run_id,
            task=task,
            model=model,
            workspace=workspace,
            config_digest=digest,
            parent_run_id=parent,
            started_at=_time(started),
            ended_at=_optional_time(ended),
            status=stop or INTERRUPTED,
            detail=detail,
            output=output,
            turns=turns,
            tool_calls=tool_calls,
            usage=RunUsage(
                input_tokens=input_tokens,
                output_tokens=output_tokens,
                reviewer_input_tokens=reviewer_input_tokens,
                reviewer_output_tokens=reviewer_output_tokens,
            ),
            cost=cost,
        )


def _engine(engine: str) -> str | None:
    """The ``runs.engine`` value: NULL for the local engine (as runs recorded before the column)."""
    return None if engine == "local" else engine
