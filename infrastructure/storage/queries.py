"""Read queries over the run log's projections: text search and statistics."""

from __future__ import annotations

import sqlite3
import statistics
from datetime import UTC, datetime

from quorum.application.ports.run_store import (
    INTERRUPTED,
    ReviewerStats,
    SearchHit,
    StoreStats,
    ToolStats,
)
from quorum.domain.responses import Usage

_SOURCES = (
    ("task", "SELECT id AS run_id, NULL AS turn, task AS body FROM runs"),
    ("output", "SELECT id AS run_id, NULL AS turn, output AS body FROM runs"),
    ("text", "SELECT run_id, turn, text AS body FROM turn_texts"),
    ("tool_call", "SELECT run_id, turn, name || ' ' || arguments AS body FROM tool_calls"),
    ("tool_result", "SELECT run_id, turn, output AS body FROM tool_results"),
    ("review", "SELECT run_id, turn, reason AS body FROM reviews"),
    ("review", "SELECT v.run_id AS run_id, r.turn AS turn, v.reviewer || ': ' || v.reason AS body"
     " FROM votes v JOIN reviews r ON r.run_id = v.run_id AND r.seq = v.seq"),
)  # fmt: skip
"""(where, SQL selecting run_id, turn and the searched body) of every searchable text."""

EXCERPT = 60
"""Characters of context shown on each side of a match."""


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _excerpt(haystack: str, needle: str) -> str:
    at = haystack.lower().find(needle.lower())
    if at < 0:  # LIKE folds ASCII case only; lower() may disagree on other scripts
        at = 0
    start, end = max(0, at - EXCERPT), min(len(haystack), at + len(needle) + EXCERPT)
    text = " ".join(haystack[start:end].split())
    return ("…" if start > 0 else "") + text + ("…" if end < len(haystack) else "")


def search(conn: sqlite3.Connection, text: str, limit: int) -> list[SearchHit]:
    """Matches of ``text`` anywhere in the log, newest run first, then in the run's order."""
    if not text:
        return []
    union = " UNION ALL ".join(
        f"SELECT '{where}' AS src, {i} AS k, s.run_id, s.turn, s.body FROM ({sql}) AS s"
        f" WHERE body LIKE :pattern ESCAPE '\\'"
        for i, (where, sql) in enumerate(_SOURCES)
    )
    sql = (
        f"SELECT m.src, m.run_id, m.turn, m.body, r.started_at FROM ({union}) m"
        " JOIN runs r ON r.id = m.run_id"
        " ORDER BY r.started_at DESC, r.rowid DESC, COALESCE(m.turn, 0), m.k LIMIT :limit"
    )
    rows = conn.execute(sql, {"pattern": _like(text), "limit": limit}).fetchall()
    return [
        SearchHit(
            run_id=run_id,
            started_at=datetime.fromtimestamp(started, UTC),
            where=where,
            turn=turn,
            excerpt=_excerpt(body, text),
        )
        for where, run_id, turn, body, started in rows
    ]


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def stats(conn: sqlite3.Connection) -> StoreStats:
    """Totals over the log (tool figures count every call that got a result)."""
    by_status = {
        status or INTERRUPTED: n
        for status, n in conn.execute("SELECT stop_reason, COUNT(*) FROM runs GROUP BY stop_reason")
    }
    runs, turns, input_tokens, output_tokens = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(turns), 0), COALESCE(SUM(input_tokens), 0),"
        " COALESCE(SUM(output_tokens), 0) FROM runs"
    ).fetchone()
    durations: dict[str, list[float]] = {}
    for name, duration in conn.execute(
        "SELECT name, duration_ms FROM tool_results WHERE is_rejected = 0 AND duration_ms > 0"
    ):
        durations.setdefault(name, []).append(duration)
    tools = tuple(
        ToolStats(
            name=name,
            calls=calls,
            errors=errors,
            rejected=rejected,
            error_rate=round(errors / calls, 4),
            median_duration_ms=_median(durations.get(name, [])),
        )
        for name, calls, errors, rejected in conn.execute(
            "SELECT name, COUNT(*), SUM(is_error), SUM(is_rejected) FROM tool_results"
            " GROUP BY name ORDER BY COUNT(*) DESC, name"
        )
    )
    latencies: dict[str, list[float]] = {}
    for reviewer, latency in conn.execute("SELECT reviewer, latency_ms FROM votes"):
        latencies.setdefault(reviewer, []).append(latency)
    reviewers = tuple(
        ReviewerStats(
            reviewer=reviewer,
            votes=votes,
            approvals=approvals,
            rejections=rejections,
            errors=votes - approvals - rejections,
            approval_rate=round(approvals / votes, 4),
            median_latency_ms=_median(latencies.get(reviewer, [])),
        )
        for reviewer, votes, approvals, rejections in conn.execute(
            "SELECT reviewer, COUNT(*), SUM(verdict = 'approve'), SUM(verdict = 'reject') FROM votes"
            " GROUP BY reviewer ORDER BY reviewer"
        )
    )
    decisions = dict(conn.execute("SELECT decided_by, COUNT(*) FROM reviews GROUP BY decided_by ORDER BY 1"))
    tool_calls = conn.execute("SELECT COUNT(*) FROM tool_results").fetchone()[0]
    return StoreStats(
        runs=runs,
        runs_by_status=by_status,
        turns=turns,
        tool_calls=tool_calls,
        usage=Usage(input_tokens=input_tokens, output_tokens=output_tokens),
        tools=tools,
        reviewers=reviewers,
        decisions_by=decisions,
    )
