"""PostgresRunStore: the run log in a PostgreSQL database, shared by workers on several machines.

The same contract as ``SqliteRunStore`` (the ``RunStore`` and ``PendingApprovals`` ports) over
the same three tables (``postgres_schema.py``). Every write is one committed transaction; a
claim locks the run's row (``SELECT … FOR UPDATE``) before it re-reads what is pending, so of two
processes claiming the same run, on any machines, the second waits for the first and then finds
the run no longer awaiting approval; the decisions' primary key backs that up.

psycopg (``pip install "quorum-agent[postgres]"``) is imported by the first use of the store,
never by ``import quorum``.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

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
from quorum.infrastructure.storage import postgres_queries
from quorum.infrastructure.storage.approvals import same_claim
from quorum.infrastructure.storage.postgres_schema import migrate
from quorum.infrastructure.storage.queries import like
from quorum.infrastructure.storage.writer import write_events

if TYPE_CHECKING:
    import psycopg

_EVENT: TypeAdapter[RunEvent] = TypeAdapter(RunEvent)

AWAITING = postgres_queries.AWAITING

_SUMMARY = """
SELECT r.id, r.task, r.model, r.workspace, r.config_digest, r.parent_run_id, r.started_at, r.ended_at,
       r.stop_reason, r.detail, r.output, r.turns, r.input_tokens, r.output_tokens,
       r.reviewer_input_tokens, r.reviewer_output_tokens, r.cost,
       (SELECT COUNT(*) FROM events e WHERE e.run_id = r.id AND e.type = 'tool_call'), r.engine
FROM runs r
"""


def import_psycopg() -> Any:
    """The psycopg module, or a configuration error saying how to install it."""
    try:
        import psycopg
    except ImportError:
        raise ConfigurationError(
            '[storage] backend = "postgres" needs psycopg: pip install "quorum-agent[postgres]"',
            key="storage.backend",
        ) from None
    return psycopg


def masked_url(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``, for messages."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return "<the configured [storage] url>"
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class PostgresRunStore:
    """A ``RunStore`` and ``PendingApprovals`` in the PostgreSQL database at ``url``.

    Construction is free: the connection is opened, and the schema migrated, by the first call
    that needs it. Thread-safe (one connection behind a lock); processes and machines share the
    database through PostgreSQL's transactions. A broken connection is reopened on next use.
    """

    def __init__(self, url: str, *, connect_timeout: int = 10) -> None:
        self.url = url
        self._connect_timeout = connect_timeout
        self._conn: psycopg.Connection[tuple[Any, ...]] | None = None
        self._lock = threading.Lock()
        self._turns: dict[str, int] = {}  # current turn of runs this store writes

    def __repr__(self) -> str:
        return f"PostgresRunStore({masked_url(self.url)!r})"

    # -- connection -----------------------------------------------------------------------------

    def _connect(self) -> psycopg.Connection[tuple[Any, ...]]:
        if self._conn is not None and not self._conn.closed:
            return self._conn
        psycopg = import_psycopg()
        source = masked_url(self.url)
        try:
            conn = psycopg.connect(self.url, autocommit=True, connect_timeout=self._connect_timeout)
        except psycopg.Error as error:
            raise ConfigurationError(f"cannot connect to the run log: {_first_line(error)}", source=source) from None
        try:
            migrate(conn, source)
        except psycopg.Error as error:
            conn.close()
            raise ConfigurationError(f"cannot use the run log: {_first_line(error)}", source=source) from None
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    @contextmanager
    def _read(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        with self._lock:
            conn = self._connect()
            try:
                yield conn
            except import_psycopg().Error as error:
                self._drop_if_broken(conn)
                raise RunFailure(f"run log {masked_url(self.url)}: {_first_line(error)}") from None

    @contextmanager
    def _write(self) -> Iterator[psycopg.Connection[tuple[Any, ...]]]:
        psycopg = import_psycopg()
        with self._lock:
            conn = self._connect()
            try:
                with conn.transaction():
                    yield conn
            except psycopg.IntegrityError as error:
                raise UsageError(f"run log {masked_url(self.url)}: {_first_line(error)}") from None
            except psycopg.Error as error:
                self._drop_if_broken(conn)
                raise RunFailure(f"run log {masked_url(self.url)}: {_first_line(error)}") from None

    def _drop_if_broken(self, conn: psycopg.Connection[tuple[Any, ...]]) -> None:
        if conn.broken or conn.closed:
            conn.close()
            self._conn = None

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
                " VALUES (%s, %s, %s, %s, %s, %s, %s, %s)",
                (header.run_id, header.task, header.model, header.workspace, header.config_digest,
                 header.parent_run_id, header.started_at.timestamp(), _engine(header.engine)),
            )  # fmt: skip
        self._turns[header.run_id] = 0

    def append_events(self, run_id: str, events: Sequence[RecordedEvent]) -> None:
        if not events:
            return
        with self._write() as conn:
            turn = self._turns.get(run_id)
            if turn is None:
                row = conn.execute("SELECT turns FROM runs WHERE id = %s", (run_id,)).fetchone()
                if row is None:
                    raise UsageError(f"run log {masked_url(self.url)}: no run {run_id!r} was started")
                turn = int(row[0])
            self._turns[run_id] = write_events(conn, run_id, turn, events, mark="%s")

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
        values: dict[str, Any] = {"limit": limit}
        if model:
            where.append("r.model ILIKE %(model)s")
            values["model"] = like(model)
        if since is not None:
            where.append("r.started_at >= %(since)s")
            values["since"] = since.timestamp()
        if text:
            where.append(
                "(r.task ILIKE %(text)s OR r.output ILIKE %(text)s OR EXISTS"
                " (SELECT 1 FROM events e WHERE e.run_id = r.id AND e.data::text ILIKE %(text)s))"
            )
            values["text"] = like(text)
        clause = (" WHERE " + " AND ".join(where)) if where else ""
        sql = _SUMMARY + clause + " ORDER BY r.started_at DESC, r.ord DESC LIMIT %(limit)s"
        with self._read() as conn:
            return [_summary(row) for row in conn.execute(sql.encode(), values).fetchall()]

    def match_run_ids(self, prefix: str, limit: int = 10) -> list[str]:
        with self._read() as conn:
            rows = conn.execute(
                "SELECT id FROM runs WHERE left(id, %s) = %s ORDER BY started_at DESC, ord DESC LIMIT %s",
                (len(prefix), prefix, limit),
            )
            return [row[0] for row in rows.fetchall()]

    def delete_runs(self, run_ids: Sequence[str]) -> int:
        ids = list(dict.fromkeys(run_ids))
        if not ids:
            return 0
        with self._write() as conn:
            conn.execute("UPDATE runs SET parent_run_id = NULL WHERE parent_run_id = ANY(%s)", (ids,))
            conn.execute("DELETE FROM events WHERE run_id = ANY(%s)", (ids,))
            conn.execute("DELETE FROM decisions WHERE run_id = ANY(%s)", (ids,))
            conn.execute("DELETE FROM payloads WHERE run_id = ANY(%s)", (ids,))
            deleted = conn.execute("DELETE FROM runs WHERE id = ANY(%s)", (ids,)).rowcount
        for run_id in ids:
            self._turns.pop(run_id, None)
        return int(deleted)

    def get_run(self, run_id: str) -> RunSummary | None:
        with self._read() as conn:
            row = conn.execute((_SUMMARY + " WHERE r.id = %s").encode(), (run_id,)).fetchone()
            return None if row is None else _summary(row)

    def last_run_id(self) -> str | None:
        with self._read() as conn:
            row = conn.execute("SELECT id FROM runs ORDER BY started_at DESC, ord DESC LIMIT 1").fetchone()
            return None if row is None else row[0]

    def load_events(self, run_id: str) -> list[RecordedEvent]:
        with self._read() as conn:
            rows = conn.execute("SELECT seq, at, data::text FROM events WHERE run_id = %s ORDER BY seq", (run_id,))
            return [
                RecordedEvent(seq=seq, at=_time(at), event=_EVENT.validate_json(data))
                for seq, at, data in rows.fetchall()
            ]

    def load_history(self, run_id: str) -> list[Message]:
        history = recorded_conversation(self, run_id)
        if history is None:
            raise UsageError(f"no run {run_id!r} in the run log {masked_url(self.url)}")
        return history

    def search(self, text: str, limit: int = 50) -> list[SearchHit]:
        with self._read() as conn:
            return postgres_queries.search(conn, text, limit)

    def stats(self) -> StoreStats:
        with self._read() as conn:
            return postgres_queries.stats(conn)

    # -- pending approvals ----------------------------------------------------------------------

    def pending(self, run_id: str | None = None) -> list[PendingCall]:
        with self._read() as conn:
            return postgres_queries.pending(conn, run_id)

    def put_payload(self, run_id: str, key: str, data: str) -> None:
        """Keep ``data`` under ``(run_id, key)`` (a large tool output of a Temporal run); a repeated put is ignored."""
        with self._write() as conn:
            conn.execute(
                "INSERT INTO payloads (run_id, key, data) VALUES (%s, %s, %s) ON CONFLICT (run_id, key) DO NOTHING",
                (run_id, key, data),
            )

    def get_payload(self, run_id: str, key: str) -> str | None:
        """The data kept under ``(run_id, key)``, None when there is none."""
        with self._read() as conn:
            row = conn.execute("SELECT data FROM payloads WHERE run_id = %s AND key = %s", (run_id, key)).fetchone()
        return None if row is None else str(row[0])

    def claim(self, run_id: str, decisions: Sequence[CallDecision]) -> None:
        with self._write() as conn:
            # The row lock serializes claimers of this run across connections and machines: the
            # second one waits here, then reads the run as the first one left it.
            row = conn.execute("SELECT stop_reason FROM runs WHERE id = %s FOR UPDATE", (run_id,)).fetchone()
            rows = conn.execute("SELECT call_id, decision_id FROM decisions WHERE run_id = %s", (run_id,)).fetchall()
            if same_claim({str(c): d for c, d in rows}, decisions):
                return  # this claim (its decision id) was recorded by an earlier attempt
            if row is None:
                raise UsageError(f"there is no run {run_id!r} in the run log")
            if row[0] != AWAITING:
                status = row[0] or "being continued, or interrupted"
                raise UsageError(f"run {run_id} is not waiting for approval (status: {status}); nothing was decided")
            open_ids = {p.request.call_id for p in postgres_queries.pending(conn, run_id)}
            gone = [d.call_id for d in decisions if d.call_id not in open_ids]
            if gone or not decisions:
                raise UsageError(
                    f"run {run_id}: {', '.join(gone) or 'no call'} is no longer pending (already decided or"
                    " executed); nothing was decided"
                )
            now = time.time()
            with conn.cursor() as cursor:
                cursor.executemany(
                    "INSERT INTO decisions (run_id, call_id, approved, by, reason, decided_at, decision_id)"
                    " VALUES (%s, %s, %s, %s, %s, %s, %s)",
                    [(run_id, d.call_id, d.approved, d.by, d.reason, now, d.decision_id) for d in decisions],
                )
            conn.execute("UPDATE runs SET stop_reason = NULL, ended_at = NULL WHERE id = %s", (run_id,))


def _first_line(error: BaseException) -> str:
    return (str(error).strip().splitlines() or [type(error).__name__])[0]


def _time(value: float) -> datetime:
    return datetime.fromtimestamp(value, UTC)


def _summary(row: Sequence[Any]) -> RunSummary:
    (run_id, task, model, workspace, digest, parent, started, ended, stop, detail, output, turns,
     input_tokens, output_tokens, reviewer_input_tokens, reviewer_output_tokens, cost, tool_calls,
     engine) = row  # fmt: skip
    return RunSummary(
        engine=engine or "local",
        run_id=run_id,
        task=task,
        model=model,
        workspace=workspace,
        config_digest=digest,
        parent_run_id=parent,
        started_at=_time(started),
        ended_at=None if ended is None else _time(ended),
        status=stop or INTERRUPTED,
        detail=detail,
        output=output,
        turns=turns,
        tool_calls=int(tool_calls),
        usage=RunUsage(
            input_tokens=int(input_tokens),
            output_tokens=int(output_tokens),
            reviewer_input_tokens=int(reviewer_input_tokens),
            reviewer_output_tokens=int(reviewer_output_tokens),
        ),
        cost=cost,
    )


def _engine(engine: str) -> str | None:
    """The ``runs.engine`` value: NULL for the local engine (as runs recorded before the column)."""
    return None if engine == "local" else engine
