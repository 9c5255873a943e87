"""The schema written once: logs created by the DDL each backend shipped before open and match a new one.

The scripts are frozen copies of the per-backend DDL as it shipped (``shipped_ddl.py``), so a
change to the one schema that would break an existing log cannot hide here.
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
from tests.integration.storage.shipped_ddl import POSTGRES_SHIPPED, SQLITE_SHIPPED
from tests.support.postgres import PostgresServer

NOW = datetime(2025, 5, 1, tzinfo=UTC)


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


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6, 7])
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


@pytest.mark.parametrize("version", [1, 2, 3, 4])
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
