"""The SQLite log's schema version: ``PRAGMA user_version``, migrated on open under the write lock.

``user_version`` is the number of the schema's version (``schema.SCHEMA_VERSION``; 0: a new file).
Opening a log applies what ``schema.upgrade`` says in one ``BEGIN IMMEDIATE`` transaction (DDL is
transactional in SQLite), re-reading the version inside it, so two processes opening an old log at
once migrate it exactly once.
"""

from __future__ import annotations

import sqlite3

from quorum.infrastructure.storage.operations import SqliteOperations
from quorum.infrastructure.storage.schema import SCHEMA_VERSION, refuse_newer, upgrade

_OPS = SqliteOperations()
_ELSEWHERE = "[storage] path / QUORUM_DB"


def migrate(conn: sqlite3.Connection, source: str) -> int:
    """Bring the schema of an open (autocommit) connection to ``SCHEMA_VERSION``; returns the old version.

    Raises:
        ConfigurationError: the log was written by a newer Quorum (a higher version).
    """
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return version
    refuse_newer(version, SCHEMA_VERSION, source, _ELSEWHERE)
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have migrated
        refuse_newer(version, SCHEMA_VERSION, source, _ELSEWHERE)
        for statement in upgrade(_OPS, version):
            conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return version
