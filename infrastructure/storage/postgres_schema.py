"""The run log's PostgreSQL schema, as numbered migrations applied on first use.

The same three tables as the SQLite log (``schema.py``), with the same meaning: ``runs`` (one row
per run), ``events`` (every run event as its ``--json`` text, the source of truth) and
``decisions`` (people's decisions on deferred calls; its primary key makes a call decided at most
once). Times are seconds since the epoch (``double precision``) as in SQLite, so both stores share
their read models; ``runs.ord`` plays the part of SQLite's ``rowid`` (a tie-break between runs
started in the same instant). Event data is ``json`` (kept as written, so ``->>`` returns exactly
the text SQLite's ``json_extract`` does).

``quorum_schema`` holds the number of migrations applied. Opening a database applies the missing
ones in one transaction under a transaction-scoped advisory lock (DDL is transactional in
PostgreSQL), re-reading the version inside it, so processes on several machines opening a new
database at once migrate it exactly once. Migrations are only ever appended.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.domain.errors import ConfigurationError

if TYPE_CHECKING:
    import psycopg

MIGRATION_LOCK = 0x71756F72756D  # "quorum": the advisory lock key migrations take
"""Key of the transaction-level advisory lock held while migrating."""

_V1 = """
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    ord BIGSERIAL NOT NULL,
    task TEXT NOT NULL,
    model TEXT NOT NULL,
    workspace TEXT,
    config_digest TEXT,
    parent_run_id TEXT REFERENCES runs(id),
    started_at DOUBLE PRECISION NOT NULL,
    ended_at DOUBLE PRECISION,
    stop_reason TEXT,
    detail TEXT,
    output TEXT NOT NULL DEFAULT '',
    turns INTEGER NOT NULL DEFAULT 0,
    input_tokens BIGINT NOT NULL DEFAULT 0,
    output_tokens BIGINT NOT NULL DEFAULT 0,
    reviewer_input_tokens BIGINT NOT NULL DEFAULT 0,
    reviewer_output_tokens BIGINT NOT NULL DEFAULT 0,
    cost DOUBLE PRECISION
);
CREATE INDEX runs_by_start ON runs(started_at, ord);
CREATE TABLE events (
    run_id TEXT NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    at DOUBLE PRECISION NOT NULL,
    type TEXT NOT NULL,
    turn INTEGER NOT NULL,
    data JSON NOT NULL,
    PRIMARY KEY (run_id, seq)
);
CREATE INDEX events_by_type ON events(type);
CREATE TABLE decisions (
    run_id TEXT NOT NULL REFERENCES runs(id),
    call_id TEXT NOT NULL,
    approved BOOLEAN NOT NULL,
    by TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    decided_at DOUBLE PRECISION NOT NULL,
    PRIMARY KEY (run_id, call_id)
)
"""

_V2 = """
ALTER TABLE runs ADD COLUMN engine TEXT;
ALTER TABLE decisions ADD COLUMN decision_id TEXT;
CREATE TABLE payloads (
    run_id TEXT NOT NULL,
    key TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
)
"""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("runs, their events and people's decisions on deferred calls (SQLite schema 4)", _V1),
    ("the engine a run lives on, a claim's id, Temporal runs' large tool outputs (SQLite schema 5)", _V2),
)
"""(description, SQL) in order."""

SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: psycopg.Connection[tuple[object, ...]], source: str) -> int:
    """Bring the schema of an open (autocommit) connection to ``SCHEMA_VERSION``; returns the old version.

    Raises:
        ConfigurationError: the database was written by a newer Quorum (a higher version).
    """
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS quorum_schema (version INTEGER NOT NULL)")
        row = conn.execute("SELECT version FROM quorum_schema").fetchone()
        if row is None:
            conn.execute("INSERT INTO quorum_schema (version) VALUES (0)")
            version = 0
        else:
            version = int(str(row[0]))
        if version > SCHEMA_VERSION:
            raise ConfigurationError(
                f"the run log has schema version {version}, newer than this Quorum knows ({SCHEMA_VERSION});"
                " upgrade Quorum or point [storage] url elsewhere",
                source=source,
            )
        for _, sql in MIGRATIONS[version:]:
            for statement in (s.strip() for s in sql.split(";")):
                if statement:
                    conn.execute(statement.encode())
        if version != SCHEMA_VERSION:
            conn.execute("UPDATE quorum_schema SET version = %s", (SCHEMA_VERSION,))
    return version
