"""The run log's SQLite schema, as numbered migrations applied on open.

``PRAGMA user_version`` holds the number of migrations applied. Opening a log applies the missing
ones in one ``BEGIN IMMEDIATE`` transaction (DDL is transactional in SQLite), re-reading the version
inside it, so two processes opening an old log at once migrate it exactly once. Migrations are
only ever appended; a shipped one is never edited.

Two tables: ``runs`` (one row per run: its header, its current turn, and how it ended, written by
``run_finished``) and ``events`` (every run event as its ``--json`` form, in order: the source of
truth). Everything else, the conversation, tool and review figures, search, is read from the events.
A third, ``decisions``, only claims people's decisions on deferred calls (``approvals.py``): its
primary key is what makes a call decided, and so executed, at most once. ``runs.engine`` says
where a run lives (NULL: the local engine); ``payloads`` holds large tool outputs of runs on the
Temporal engine, referenced from workflow history instead of copied into it.
"""

from __future__ import annotations

import sqlite3

from quorum.domain.errors import ConfigurationError

_V1 = """
CREATE TABLE runs (
    id TEXT PRIMARY KEY,
    task TEXT NOT NULL,
    model TEXT NOT NULL,
    workspace TEXT,
    config_digest TEXT,
    started_at REAL NOT NULL,
    ended_at REAL,
    stop_reason TEXT,
    detail TEXT,
    output TEXT NOT NULL DEFAULT '',
    input_tokens INTEGER NOT NULL DEFAULT 0,
    output_tokens INTEGER NOT NULL DEFAULT 0
);
CREATE TABLE events (
    run_id TEXT NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    at REAL NOT NULL,
    type TEXT NOT NULL,
    turn INTEGER NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
"""

_V2 = """
ALTER TABLE runs ADD COLUMN turns INTEGER NOT NULL DEFAULT 0;
ALTER TABLE runs ADD COLUMN parent_run_id TEXT REFERENCES runs(id);
CREATE INDEX runs_by_start ON runs(started_at);
UPDATE runs SET turns = COALESCE((SELECT MAX(turn) FROM events WHERE events.run_id = runs.id), 0);
"""

_V3 = """
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
"""

_V4 = """
CREATE TABLE decisions (
    run_id TEXT NOT NULL REFERENCES runs(id),
    call_id TEXT NOT NULL,
    approved INTEGER NOT NULL,
    by TEXT NOT NULL,
    reason TEXT NOT NULL DEFAULT '',
    decided_at REAL NOT NULL,
    PRIMARY KEY (run_id, call_id)
) WITHOUT ROWID;
"""

_V5 = """
ALTER TABLE runs ADD COLUMN engine TEXT;
ALTER TABLE decisions ADD COLUMN decision_id TEXT;
CREATE TABLE payloads (
    run_id TEXT NOT NULL,
    key TEXT NOT NULL,
    data TEXT NOT NULL,
    PRIMARY KEY (run_id, key)
) WITHOUT ROWID;
"""

MIGRATIONS: tuple[tuple[str, str], ...] = (
    ("runs and their events", _V1),
    ("runs track their current turn (interrupted runs show how far they got) and the run they continue", _V2),
    ("runs record their reviewer models' tokens and their cost (USD, NULL when unknown)", _V3),
    ("people's decisions on deferred calls, each claimed once (quorum approve / reject)", _V4),
    (
        "the engine a run lives on (NULL: local), a claim's id (a repeated claim is recognised), and large"
        " tool outputs of Temporal runs kept out of workflow history",
        _V5,
    ),
)
"""(description, SQL) in order."""

SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, source: str) -> int:
    """Bring the schema of an open (autocommit) connection to ``SCHEMA_VERSION``; returns the old version.

    Raises:
        ConfigurationError: the log was written by a newer Quorum (a higher version).
    """
    version = conn.execute("PRAGMA user_version").fetchone()[0]
    if version == SCHEMA_VERSION:
        return version
    _check_not_newer(version, source)
    conn.execute("BEGIN IMMEDIATE")
    try:
        version = conn.execute("PRAGMA user_version").fetchone()[0]  # another process may have migrated
        _check_not_newer(version, source)
        for _, sql in MIGRATIONS[version:]:
            for statement in _statements(sql):
                conn.execute(statement)
        conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise
    return version


def _check_not_newer(version: int, source: str) -> None:
    if version > SCHEMA_VERSION:
        raise ConfigurationError(
            f"the run log has schema version {version}, newer than this Quorum knows ({SCHEMA_VERSION}); "
            "upgrade Quorum or point [storage] path / QUORUM_DB elsewhere",
            source=source,
        )


def _statements(script: str) -> list[str]:
    """Split a migration script on ``;`` (ours contain no ``;`` inside literals or triggers)."""
    return [s.strip() for s in script.split(";") if s.strip()]
