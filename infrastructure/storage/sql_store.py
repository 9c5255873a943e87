"""SqlRunStore: the run log's ``RunStore`` and ``PendingApprovals``, written once over an SQL dialect.

Every statement is here or in ``queries.py``, ``approvals.py`` and ``writer.py``, written with
``?`` placeholders and the dialect's expressions (``operations.py``). A backend subclass
(``SqliteRunStore``, ``PostgresRunStore``) brings only its connection: how it is opened and
migrated, how a write transaction begins, what its driver's errors are, and where the log is (for
messages). Each store is synchronous and thread-safe: one connection behind a lock, every write
one committed transaction.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from contextlib import AbstractContextManager, contextmanager
from datetime import datetime
from typing import Any

from pydantic import TypeAdapter

from quorum.application.history import recorded_conversation
from quorum.application.ports.approvals import CallDecision, PendingCall
from quorum.application.ports.run_store import RecordedEvent, RunHeader, RunSummary, SearchHit, StoreStats
from quorum.domain.errors import ConfigurationError, RunFailure, UsageError
from quorum.domain.events import RunEvent
from quorum.domain.messages import Message
from quorum.infrastructure.storage import approvals, queries
from quorum.infrastructure.storage.figures import like
from quorum.infrastructure.storage.operations import Operations
from quorum.infrastructure.storage.writer import write_events

_EVENT: TypeAdapter[RunEvent] = TypeAdapter(RunEvent)

EventBatch = tuple[RunHeader | None, str, Sequence[RecordedEvent]]
"""A run's part of a group commit: its header when it starts now, its id, its new events."""


class SqlRunStore:
    """A ``RunStore`` and ``PendingApprovals`` over one connection of a backend's driver.

    Subclasses set ``ops`` and implement the backend's part (where the log is, its driver's errors,
    opening and preparing a connection, a write transaction); they may override ``_usable``.
    Construction opens nothing.
    """

    ops: Operations

    def __init__(self) -> None:
        self._conn: Any = None
        self._lock = threading.Lock()
        self._turns: dict[str, int] = {}  # current turn of runs this store writes

    # -- the backend's part ---------------------------------------------------------------------

    @property
    def _where(self) -> str:
        """The log's path or URL as messages show it (never a password)."""
        raise NotImplementedError

    def _driver_errors(self) -> tuple[type[Exception], type[Exception]]:
        """(the driver's base error, its integrity error)."""
        raise NotImplementedError

    def _open(self) -> Any:
        """A new connection in autocommit mode.

        Raises:
            ConfigurationError: the log cannot be reached.
        """
        raise NotImplementedError

    def _prepare(self, conn: Any) -> None:
        """Set up a new connection and migrate the schema (a driver error here closes it)."""
        raise NotImplementedError

    def _transaction(self, conn: Any) -> AbstractContextManager[Any]:
        """One write transaction on ``conn``: committed when the block ends, rolled back when it raises."""
        raise NotImplementedError

    def _usable(self, conn: Any) -> bool:
        """Whether ``conn`` still works (after a driver error a connection may be broken for good)."""
        return True

    # -- connection -----------------------------------------------------------------------------

    def _connect(self) -> Any:
        """The open connection, opened, prepared and migrated first if there is none or it broke.

        Raises:
            ConfigurationError: the log cannot be opened, or has a newer schema.
        """
        if self._conn is not None and self._usable(self._conn):
            return self._conn
        conn = self._open()
        error_type, _ = self._driver_errors()
        try:
            self._prepare(conn)
        except error_type as error:
            conn.close()
            raise ConfigurationError(f"cannot use the run log: {first_line(error)}", source=self._where) from None
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _forget_if_broken(self, conn: Any) -> None:
        if not self._usable(conn):
            conn.close()
            self._conn = None

    @contextmanager
    def _read(self) -> Iterator[Any]:
        error_type, _ = self._driver_errors()
        with self._lock:
            conn = self._connect()
            try:
                yield conn
            except error_type as error:
                self._forget_if_broken(conn)
                raise RunFailure(f"run log {self._where}: {first_line(error)}") from None

    @contextmanager
    def _write(self) -> Iterator[Any]:
        error_type, integrity_error = self._driver_errors()
        with self._lock:
            conn = self._connect()
            try:
                with self._transaction(conn):
                    yield conn
            except integrity_error as error:
                raise UsageError(f"run log {self._where}: {first_line(error)}") from None
            except error_type as error:
                self._forget_if_broken(conn)
                raise RunFailure(f"run log {self._where}: {first_line(error)}") from None

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- writing --------------------------------------------------------------------------------

    def start_run(self, header: RunHeader) -> None:
        with self._write() as conn:
            self._insert_run(conn, header)
        self._turns[header.run_id] = 0

    def append_events(self, run_id: str, events: Sequence[RecordedEvent]) -> None:
        if not events:
            return
        with self._write() as conn:
            turn = self._write_run_events(conn, run_id, self._turns.get(run_id), events)
        self._turns[run_id] = turn

    def append_event_batches(self, batches: Sequence[EventBatch]) -> None:
        """Start runs and append events of several runs in ONE transaction: all of it is committed, or none.

        Each batch is ``(header, run_id, events)``: the run is started first when ``header`` is not
        None; batches are written in order. What the run log's group commit (``group_commit.py``)
        writes for every run that emitted events in one turn of the event loop.

        Raises:
            UsageError: a run is started twice, or events name a run that was never started.
            RunFailure: the log cannot be written.
        """
        if not batches:
            return
        turns: dict[str, int] = {}
        with self._write() as conn:
            for header, run_id, events in batches:
                if header is not None:
                    self._insert_run(conn, header)
                    turns[run_id] = 0
                if events:
                    turn = turns.get(run_id, self._turns.get(run_id))
                    turns[run_id] = self._write_run_events(conn, run_id, turn, events)
        self._turns.update(turns)  # only once committed

    def _insert_run(self, conn: Any, header: RunHeader) -> None:
        conn.execute(
            self.ops.sql(
                "INSERT INTO runs (id, task, model, workspace, config_digest, parent_run_id, started_at, engine,"
                " subagent) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
            ),
            (header.run_id, header.task, header.model, header.workspace, header.config_digest,
             header.parent_run_id, header.started_at.timestamp(), _engine(header.engine), header.subagent),
        )  # fmt: skip

    def _write_run_events(self, conn: Any, run_id: str, turn: int | None, events: Sequence[RecordedEvent]) -> int:
        if turn is None:
            row = conn.execute(self.ops.sql("SELECT turns FROM runs WHERE id = ?"), (run_id,)).fetchone()
            if row is None:
                raise UsageError(f"run log {self._where}: no run {run_id!r} was started")
            turn = int(row[0])
        return write_events(conn, self.ops, run_id, turn, events)

    def delete_runs(self, run_ids: Sequence[str]) -> int:
        ids = list(dict.fromkeys(run_ids))
        if not ids:
            return 0
        ops = self.ops
        with self._write() as conn:
            among, values = ops.one_of("parent_run_id", ids)
            conn.execute(ops.sql(f"UPDATE runs SET parent_run_id = NULL WHERE {among}"), values)
            among, values = ops.one_of("run_id", ids)
            for table in ("events", "decisions", "payloads"):
                conn.execute(ops.sql(f"DELETE FROM {table} WHERE {among}"), values)
            among, values = ops.one_of("id", ids)
            deleted = conn.execute(ops.sql(f"DELETE FROM runs WHERE {among}"), values).rowcount
        for run_id in ids:
            self._turns.pop(run_id, None)
        return int(deleted)

    def put_payload(self, run_id: str, key: str, data: str) -> None:
        """Keep ``data`` under ``(run_id, key)`` (a large tool output of a Temporal run); a repeated put is ignored."""
        with self._write() as conn:
            conn.execute(
                self.ops.sql(
                    "INSERT INTO payloads (run_id, key, data) VALUES (?, ?, ?) ON CONFLICT (run_id, key) DO NOTHING"
                ),
                (run_id, key, data),
            )

    def claim(self, run_id: str, decisions: Sequence[CallDecision]) -> None:
        with self._write() as conn:
            approvals.claim(conn, self.ops, run_id, decisions)

    # -- reading --------------------------------------------------------------------------------

    def list_runs(
        self,
        limit: int = 20,
        *,
        model: str | None = None,
        since: datetime | None = None,
        text: str | None = None,
    ) -> list[RunSummary]:
        ops = self.ops
        where: list[str] = []
        values: list[Any] = []
        if model:
            where.append(ops.contains("r.model"))
            values.append(like(model))
        if since is not None:
            where.append("r.started_at >= ?")
            values.append(since.timestamp())
        if text:
            where.append(
                f"({ops.contains('r.task')} OR {ops.contains('r.output')} OR EXISTS"
                f" (SELECT 1 FROM events e WHERE e.run_id = r.id AND {ops.contains(ops.text('e.data'))}))"
            )
            values += [like(text)] * 3
        clause = (" WHERE " + " AND ".join(where)) if where else ""
        sql = queries.SUMMARY + clause + f" ORDER BY r.started_at DESC, r.{ops.order} DESC LIMIT ?"
        with self._read() as conn:
            return [queries.summary(row) for row in conn.execute(ops.sql(sql), (*values, limit)).fetchall()]

    def match_run_ids(self, prefix: str, limit: int = 10) -> list[str]:
        ops = self.ops
        sql = (
            f"SELECT id FROM runs WHERE {ops.starts_with('id')} = ? ORDER BY started_at DESC, {ops.order} DESC LIMIT ?"
        )
        with self._read() as conn:
            return [row[0] for row in conn.execute(ops.sql(sql), (len(prefix), prefix, limit)).fetchall()]

    def get_run(self, run_id: str) -> RunSummary | None:
        with self._read() as conn:
            row = conn.execute(self.ops.sql(queries.SUMMARY + " WHERE r.id = ?"), (run_id,)).fetchone()
            return None if row is None else queries.summary(row)

    def last_run_id(self) -> str | None:
        with self._read() as conn:
            row = conn.execute(
                "SELECT id FROM runs WHERE subagent IS NULL"  # a delegation is not continued on its own
                f" ORDER BY started_at DESC, {self.ops.order} DESC LIMIT 1"
            ).fetchone()
            return None if row is None else row[0]

    def load_events(self, run_id: str, *, after: int | None = None) -> list[RecordedEvent]:
        newer = "" if after is None else " AND seq > ?"
        sql = self.ops.sql(f"SELECT seq, at, {self.ops.text('data')} FROM events WHERE run_id = ?{newer} ORDER BY seq")
        values = (run_id,) if after is None else (run_id, after)
        with self._read() as conn:
            return [
                RecordedEvent(seq=seq, at=queries.time(at), event=_EVENT.validate_json(data))
                for seq, at, data in conn.execute(sql, values).fetchall()
            ]

    def load_history(self, run_id: str) -> list[Message]:
        history = recorded_conversation(self, run_id)
        if history is None:
            raise UsageError(f"no run {run_id!r} in the run log {self._where}")
        return history

    def get_payload(self, run_id: str, key: str) -> str | None:
        """The data kept under ``(run_id, key)``, None when there is none."""
        with self._read() as conn:
            sql = self.ops.sql("SELECT data FROM payloads WHERE run_id = ? AND key = ?")
            row = conn.execute(sql, (run_id, key)).fetchone()
        return None if row is None else str(row[0])

    def pending(self, run_id: str | None = None) -> list[PendingCall]:
        with self._read() as conn:
            return approvals.pending(conn, self.ops, run_id)

    def search(self, text: str, limit: int = 50) -> list[SearchHit]:
        with self._read() as conn:
            return queries.search(conn, self.ops, text, limit)

    def stats(self) -> StoreStats:
        with self._read() as conn:
            return queries.stats(conn, self.ops)


def first_line(error: BaseException) -> str:
    """The first line of a driver's message (PostgreSQL's go on with details and hints)."""
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _engine(engine: str) -> str | None:
    """The ``runs.engine`` value: NULL for the local engine (as runs recorded before the column)."""
    return None if engine == "local" else engine
