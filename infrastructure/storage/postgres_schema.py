"""The PostgreSQL log's schema version: a ``quorum_schema`` table, migrated under an advisory lock.

The tables are the schema's (``schema.py``), in the PostgreSQL dialect. ``quorum_schema`` holds
this backend's own counter, which began later than the schema's: its version 1 was the schema's
version 4 (created whole), so the counter runs ``BEHIND`` the schema's versions (0: a new
database). Opening a database applies what ``schema.upgrade`` says in one transaction under a
transaction-scoped advisory lock (DDL is transactional in PostgreSQL), re-reading the version inside
it, so processes on several machines opening a new database at once migrate it exactly once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.infrastructure.storage import schema
from quorum.infrastructure.storage.operations import PostgresOperations

if TYPE_CHECKING:
    import psycopg

MIGRATION_LOCK = 0x71756F72756D  # "quorum": the advisory lock key migrations take
"""Key of the transaction-level advisory lock held while migrating."""

BEHIND = 3
"""The schema's version minus this backend's counter (for any counter but 0)."""

SCHEMA_VERSION = schema.SCHEMA_VERSION - BEHIND
"""This backend's counter at the schema's current version."""

_OPS = PostgresOperations()


def migrate(conn: psycopg.Connection[tuple[object, ...]], source: str) -> int:
    """Bring the schema of an open (autocommit) connection to ``SCHEMA_VERSION``; returns the old counter.

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
        schema.refuse_newer(version, SCHEMA_VERSION, source, "[storage] url")
        for statement in schema.upgrade(_OPS, version + BEHIND if version else 0):
            conn.execute(statement.encode())
        if version != SCHEMA_VERSION:
            conn.execute("UPDATE quorum_schema SET version = %s", (SCHEMA_VERSION,))
    return version
