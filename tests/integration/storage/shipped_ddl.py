"""The run log's DDL as each backend shipped it before the schema was written once (issue 31): frozen.

Tests build old logs from these scripts, so editing the one schema cannot hide a change that
would break a log already on disk or in a database.
"""

from __future__ import annotations

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
    """
    ALTER TABLE runs ADD COLUMN cache_read_input_tokens INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN cache_write_input_tokens INTEGER NOT NULL DEFAULT 0;
    UPDATE runs SET
        cache_read_input_tokens = COALESCE((SELECT json_extract(data, '$.usage.cache_read_input_tokens') FROM events
            WHERE events.run_id = runs.id AND events.type = 'run_finished'), 0),
        cache_write_input_tokens = COALESCE((SELECT json_extract(data, '$.usage.cache_write_input_tokens') FROM events
            WHERE events.run_id = runs.id AND events.type = 'run_finished'), 0);
    """,
    """
    ALTER TABLE runs ADD COLUMN subagent TEXT
    """,
)
"""SQLite's migrations 1 to 7 as they shipped."""

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
    """
    ALTER TABLE runs ADD COLUMN cache_read_input_tokens BIGINT NOT NULL DEFAULT 0;
    ALTER TABLE runs ADD COLUMN cache_write_input_tokens BIGINT NOT NULL DEFAULT 0;
    UPDATE runs SET
        cache_read_input_tokens = COALESCE((SELECT (data#>>'{usage,cache_read_input_tokens}')::bigint FROM events
            WHERE events.run_id = runs.id AND events.type = 'run_finished'), 0),
        cache_write_input_tokens = COALESCE((SELECT (data#>>'{usage,cache_write_input_tokens}')::bigint FROM events
            WHERE events.run_id = runs.id AND events.type = 'run_finished'), 0)
    """,
    """
    ALTER TABLE runs ADD COLUMN subagent TEXT
    """,
)
"""PostgreSQL's migrations 1 to 4 as they shipped."""
