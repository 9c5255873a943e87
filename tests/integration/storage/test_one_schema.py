"""The schema written once: logs created by the DDL each backend shipped before open and match a new one.

The scripts below are frozen copies of the per-backend DDL as it shipped (``schema.py`` and
``postgres_schema.py`` before the schema was written once), so a change to the one schema that
would break an existing log cannot hide here.
"""

from __future__ import annotations

import sqlite3
from datetime import UTC, datetime
from pathlib import Path

import psycopg
import pytest

from quorum.application.ports.run_store import RunHeader
from quorum.infrastructure.storage import postgres_schema, schema
from quorum.infrastructure.storage.operations import SqliteOperations
from quorum.infrastructure.storage.postgres_store import PostgresRunStore
from quorum.infrastructure.storage.sqlite_store import SqliteRunStore
from tests.support.postgres import PostgresServer

NOW = datetime(2025, 5, 1, tzinfo=UTC)

SQLITE_SHIPPED = (
    """
    CREATE TABLE runs (id TEXT PRIMARY KEY, task TEXT NOT NULL, model TEXT NOT NULL, workspace TEXT,
        config_digest TEXT, started_at REAL NOT NULL, ended_at REAL, stop_reason TEXT, detail TEXT,
        output TEXT NOT NULL DEFAULT '', input_tokens INTEGER NOT NULL DEFAULT 0,
        output_tokens INTEGER NOT NULL DEFAULT 0);
    CREATE TABLE events (run_id TEXT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL, at REAL NOT NULL,
        type TEXT NOT NULL, turn INTEGER NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, seq)) WITHOUT ROWID;
    """,
    """
    ALTER TABLE runs ADD COLUMN turns INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN parent_run_id TEXT REFERENCES runs(id);
    CREATE INDEX runs_by_start ON runs(started_at);
    UPDATE runs SET turns = COALESCE((SELECT MAX(turn) FROM events WHERE events.run_id = runs.id), 0);
    """,
    """
    ALTER TABLE runs ADD COLUMN reviewer_input_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN reviewer_output_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN cost REAL;
    UPDATE runs SET
        reviewer_input_tokens = COALESCE((SELECT json_extract(data, '$.usage.reviewer_input_tokens') FROM events
            WHERE events.run_id = runs.id AND events.type = 'run_finished'), 0),
        reviewer_output_tokens = COALESCE((SELECT json_extract(data, '$.usage.reviewer_output_tokens') FROM events
            WHERE events.run_id = runs.id AND events.type = 'run_finished'), 0),
        cost = (SELECT json_extract(data, '$.cost') FROM events
            WHERE events.run_id = runs.id AND events.type = 'run_finished');
    """,
    """
    CREATE TABLE decisions (run_id TEXT NOT NULL REFERENCES runs(id), call_id TEXT NOT NULL,
        approved INTEGER NOT NULL, by TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '',
        decided_at REAL NOT NULL, PRIMARY KEY (run_id, call_id)) WITHOUT ROWID;
    """,
    """
    ALTER TABLE runs ADD COLUMN engine TEXT;
    ALTER TABLE decisions ADD COLUMN decision_id TEXT;
    CREATE TABLE payloads (run_id TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL,
        PRIMARY KEY (run_id, key)) WITHOUT ROWID;
    """,
)
"""SQLite's migrations 1 to 5 as they shipped."""

POSTGRES_SHIPPED = (
    """
    CREATE TABLE runs (id TEXT PRIMARY KEY, ord BIGSERIAL NOT NULL, task TEXT NOT NULL, model TEXT NOT NULL,
        workspace TEXT, config_digest TEXT, parent_run_id TEXT REFERENCES runs(id),
        started_at DOUBLE PRECISION NOT NULL, ended_at DOUBLE PRECISION, stop_reason TEXT, detail TEXT,
        output TEXT NOT NULL DEFAULT '', turns INTEGER NOT NULL DEFAULT 0, input_tokens BIGINT NOT NULL DEFAULT 0,
        output_tokens BIGINT NOT NULL DEFAULT 0, reviewer_input_tokens BIGINT NOT NULL DEFAULT 0,
        reviewer_output_tokens BIGINT NOT NULL DEFAULT 0, cost DOUBLE PRECISION);
    CREATE INDEX runs_by_start ON runs(started_at, ord);
    CREATE TABLE events (run_id TEXT NOT NULL REFERENCES runs(id), seq INTEGER NOT NULL,
        at DOUBLE PRECISION NOT NULL, type TEXT NOT NULL, turn INTEGER NOT NULL, data JSON NOT NULL,
        PRIMARY KEY (run_id, seq));
    CREATE INDEX events_by_type ON events(type);
    CREATE TABLE decisions (run_id TEXT NOT NULL REFERENCES runs(id), call_id TEXT NOT NULL,
        approved BOOLEAN NOT NULL, by TEXT NOT NULL, reason TEXT NOT NULL DEFAULT '',
        decided_at DOUBLE PRECISION NOT NULL, PRIMARY KEY (run_id, call_id))
    """,
    """
    ALTER TABLE runs ADD COLUMN engine TEXT;
    ALTER TABLE decisions ADD COLUMN decision_id TEXT;
    CREATE TABLE payloads (run_id TEXT NOT NULL, key TEXT NOT NULL, data TEXT NOT NULL, PRIMARY KEY (run_id, key))
    """,
)
"""PostgreSQL's migrations 1 and 2 as they shipped."""


def normal(statement: str) -> str:
    """``statement`` with its white space normalised (none inside parentheses' edges)."""
    return " ".join(statement.split()).replace("( ", "(").replace(" )", ")")


def statements(script: str) -> list[str]:
    return [normal(s) for s in script.split(";") if s.strip()]


def sqlite_log(path: Path, version: int) -> None:
    """A log at ``version`` made by the shipped DDL, with a run that started before the upgrade."""
    conn = sqlite3.connect(path)
    for script in SQLITE_SHIPPED[:version]:
        conn.executescript(script)
    conn.execute("INSERT INTO runs (id, task, model, started_at) VALUES ('old', 't', 'm:x', 1700000000.0)")
    conn.execute(f"PRAGMA user_version = {version}")
    conn.commit()
    conn.close()


def sqlite_shape(path: Path) -> dict[str, object]:
    """Every table's columns (name, type, not null, default, key), keys, references and indexes; rowid-ness."""
    conn = sqlite3.connect(path)
    try:
        tables = [r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        shape: dict[str, object] = {}
        for table in tables:
            columns = sorted(tuple(r[1:]) for r in conn.execute(f"PRAGMA table_info({table})"))
            references = sorted(tuple(r[2:5]) for r in conn.execute(f"PRAGMA foreign_key_list({table})"))
            indexes = sorted(r[1] for r in conn.execute(f"PRAGMA index_list({table})") if r[3] == "c")
            rowid = (
                "WITHOUT ROWID"
                not in conn.execute("SELECT sql FROM sqlite_master WHERE name = ?", (table,)).fetchone()[0]
            )
            index_columns = {i: [r[2] for r in conn.execute(f"PRAGMA index_info({i})")] for i in indexes}
            shape[table] = (columns, references, index_columns, rowid)
        return shape
    finally:
        conn.close()


def test_the_sqlite_migrations_are_the_shipped_statements() -> None:
    ops = SqliteOperations()
    for migration, script in zip(schema.MIGRATIONS, SQLITE_SHIPPED[1:], strict=True):
        assert [normal(step(ops)) for step in migration.steps] == statements(script)


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5])
def test_a_sqlite_log_made_by_the_shipped_ddl_opens_and_matches_a_new_one(tmp_path: Path, version: int) -> None:
    old, new = tmp_path / "old.db", tmp_path / "new.db"
    sqlite_log(old, version)
    store = SqliteRunStore(old)
    store.start_run(RunHeader(run_id="r1", task="t", model="m:x", started_at=NOW, parent_run_id="old"))
    assert [r.run_id for r in store.list_runs()] == ["r1", "old"]
    store.close()
    SqliteRunStore(new).list_runs()
    assert sqlite_shape(old) == sqlite_shape(new)


def postgres_shape(url: str) -> dict[str, object]:
    """Every column (type, nullability, default), constraint and index of the public schema."""
    with psycopg.connect(url) as conn:
        columns = conn.execute(
            "SELECT table_name, column_name, data_type, is_nullable, column_default FROM information_schema.columns"
            " WHERE table_schema = 'public' ORDER BY table_name, column_name"
        ).fetchall()
        constraints = conn.execute(
            "SELECT conrelid::regclass::text, conname, pg_get_constraintdef(oid) FROM pg_constraint"
            " WHERE connamespace = 'public'::regnamespace ORDER BY 1, 2"
        ).fetchall()
        indexes = conn.execute(
            "SELECT tablename, indexname, indexdef FROM pg_indexes WHERE schemaname = 'public' ORDER BY 1, 2"
        ).fetchall()
    return {"columns": columns, "constraints": constraints, "indexes": indexes}


@pytest.mark.parametrize("version", [1, 2])
def test_a_postgres_database_made_by_the_shipped_ddl_opens_and_matches_a_new_one(
    postgres_server: PostgresServer, version: int
) -> None:
    old, new = postgres_server.new_database(), postgres_server.new_database()
    with psycopg.connect(old, autocommit=True) as conn:
        for script in POSTGRES_SHIPPED[:version]:
            for statement in statements(script):
                conn.execute(statement.encode())
        conn.execute("CREATE TABLE quorum_schema (version INTEGER NOT NULL)")
        conn.execute("INSERT INTO quorum_schema (version) VALUES (%s)", (version,))
        conn.execute("INSERT INTO runs (id, task, model, started_at) VALUES ('old', 't', 'm:x', 1700000000.0)")
    store = PostgresRunStore(old)
    store.start_run(RunHeader(run_id="r1", task="t", model="m:x", started_at=NOW, parent_run_id="old"))
    assert [r.run_id for r in store.list_runs()] == ["r1", "old"]
    store.close()
    fresh = PostgresRunStore(new)
    fresh.last_run_id()
    fresh.close()
    assert postgres_shape(old) == postgres_shape(new)
    with psycopg.connect(old) as conn:
        assert conn.execute("SELECT version FROM quorum_schema").fetchall() == [(postgres_schema.SCHEMA_VERSION,)]
