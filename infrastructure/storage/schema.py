"""The run log's SQLite schema, as numbered migrations applied on open.

``PRAGMA user_version`` holds the number of migrations applied. Opening a log applies the missing
ones in one ``BEGIN IMMEDIATE`` transaction (DDL is transactional in SQLite), re-reading the version
inside it, so two processes opening an old log at once migrate it exactly once. Migrations are
only ever appended; a shipped one is never edited.

Tables: ``runs`` (one row per run, completed by ``run_finished``), ``events`` (every run event as
its ``--json`` form: the source of truth), and projections written in the same transaction as the
events, for listing, searching and statistics: ``turn_texts`` (the model's text coalesced per
turn), ``tool_calls``, ``tool_results``, ``reviews`` and ``votes``.
"""

from __future__ import annotations

import json
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
    turns INTEGER NOT NULL DEFAULT 0,
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
CREATE TABLE tool_calls (
    run_id TEXT NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    name TEXT NOT NULL,
    arguments TEXT NOT NULL,
    risk TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE tool_results (
    run_id TEXT NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    name TEXT NOT NULL,
    output TEXT NOT NULL,
    is_error INTEGER NOT NULL,
    is_rejected INTEGER NOT NULL,
    duration_ms REAL NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE reviews (
    run_id TEXT NOT NULL REFERENCES runs(id),
    seq INTEGER NOT NULL,
    turn INTEGER NOT NULL,
    call_id TEXT NOT NULL,
    name TEXT NOT NULL,
    approved INTEGER NOT NULL,
    decided_by TEXT NOT NULL,
    rule TEXT,
    reason TEXT NOT NULL,
    PRIMARY KEY (run_id, seq)
) WITHOUT ROWID;
CREATE TABLE votes (
    run_id TEXT NOT NULL,
    seq INTEGER NOT NULL,
    position INTEGER NOT NULL,
    reviewer TEXT NOT NULL,
    verdict TEXT NOT NULL,
    reason TEXT NOT NULL,
    latency_ms REAL NOT NULL,
    PRIMARY KEY (run_id, seq, position),
    FOREIGN KEY (run_id, seq) REFERENCES reviews(run_id, seq)
) WITHOUT ROWID;
CREATE INDEX tool_results_by_name ON tool_results(name);
"""

_V2 = """
DROP INDEX tool_results_by_name;
ALTER TABLE runs ADD COLUMN parent_run_id TEXT REFERENCES runs(id);
CREATE INDEX runs_by_start ON runs(started_at);
CREATE TABLE turn_texts (
    run_id TEXT NOT NULL REFERENCES runs(id),
    turn INTEGER NOT NULL,
    text TEXT NOT NULL,
    PRIMARY KEY (run_id, turn)
) WITHOUT ROWID;
"""


def _backfill_turn_texts(conn: sqlite3.Connection) -> None:
    """v2: coalesce the text events already recorded into ``turn_texts``."""
    texts: dict[tuple[str, int], list[str]] = {}
    rows = conn.execute("SELECT run_id, turn, data FROM events WHERE type = 'text' ORDER BY run_id, seq")
    for run_id, turn, data in rows:
        texts.setdefault((run_id, turn), []).append(json.loads(data)["text"])
    conn.executemany(
        "INSERT INTO turn_texts (run_id, turn, text) VALUES (?, ?, ?)",
        [(run_id, turn, "".join(parts)) for (run_id, turn), parts in texts.items()],
    )


MIGRATIONS: tuple[tuple[str, object], ...] = (
    ("create runs, events, tool calls, results, reviews and votes", _V1),
    (
        "runs continue runs (parent_run_id); model text coalesced per turn; no index on tool names"
        " (one page less to write per commit; stats scan the table anyway)",
        (_V2, _backfill_turn_texts),
    ),
)
"""(description, step) in order; a step is SQL, or (SQL, a function run after it)."""

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
        for _, step in MIGRATIONS[version:]:
            sql, after = step if isinstance(step, tuple) else (step, None)
            for statement in _statements(sql):
                conn.execute(statement)
            if after is not None:
                after(conn)
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
