"""Read queries over the run log's events: text search and statistics.

Both scan the events with SQLite's JSON functions rather than keep extra tables up to date on
every commit: writes stay cheap (decision 031), and a local log of many thousands of runs is still
scanned in well under a second.
"""

from __future__ import annotations

import sqlite3
import statistics
from collections import defaultdict
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from quorum.application.ports.run_store import (
    INTERRUPTED,
    ReviewerStats,
    SearchHit,
    StoreStats,
    ToolStats,
)
from quorum.domain.responses import RunUsage

_SOURCES = (
    ("task", "SELECT id AS run_id, NULL AS turn, task AS body FROM runs"),
    ("output", "SELECT id AS run_id, NULL AS turn, output AS body FROM runs"),
    ("tool_call", "SELECT run_id, turn,"
     " json_extract(data, '$.name') || ' ' || json_extract(data, '$.arguments') AS body"
     " FROM events WHERE type = 'tool_call'"),
    ("tool_result", "SELECT run_id, turn, json_extract(data, '$.output') AS body FROM events"
     " WHERE type = 'tool_result'"),
    ("review", "SELECT run_id, turn, json_extract(data, '$.reason') AS body FROM events"
     " WHERE type = 'review'"),
    ("review", "SELECT e.run_id AS run_id, e.turn AS turn,"
     " json_extract(v.value, '$.reviewer') || ': ' || json_extract(v.value, '$.reason') AS body"
     " FROM events e, json_each(e.data, '$.votes') v WHERE e.type = 'review'"),
)  # fmt: skip
"""(where, SQL selecting run_id, turn and the searched body) of every searchable text but the model's."""

_ORDER = {where: i for i, where in enumerate(("task", "text", "tool_call", "tool_result", "review", "output"))}

EXCERPT = 60
"""Characters of context shown on each side of a match."""


def like(text: str) -> str:
    """A LIKE pattern (escape character: backslash) matching ``text`` anywhere, its wildcards escaped."""
    return _like(text)


def _like(text: str) -> str:
    escaped = text.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    return f"%{escaped}%"


def _excerpt(haystack: str, needle: str) -> str:
    at = haystack.lower().find(needle.lower())
    start, end = max(0, at - EXCERPT), min(len(haystack), max(at, 0) + len(needle) + EXCERPT)
    text = " ".join(haystack[start:end].split())
    return ("…" if start > 0 else "") + text + ("…" if end < len(haystack) else "")


def _model_text_matches(conn: sqlite3.Connection, needle: str) -> list[tuple[str, str, int, str]]:
    """Turns whose coalesced model text contains ``needle`` (a match may span text deltas)."""
    rows = conn.execute(
        "SELECT run_id, turn, json_extract(data, '$.text') FROM events WHERE type = 'text' ORDER BY run_id, seq"
    )
    return model_text_hits(rows, needle)


def model_text_hits(rows: Iterable[Sequence[Any]], needle: str) -> list[tuple[str, str, int, str]]:
    """(``text``, run, turn, body) of the turns whose joined text deltas contain ``needle``.

    ``rows`` are (run_id, turn, delta) ordered by run, then sequence.
    """
    wanted = needle.lower()
    hits: list[tuple[str, str, int, str]] = []
    current: tuple[str, int] | None = None
    parts: list[str] = []

    def close() -> None:
        if current is not None and wanted in (body := "".join(parts)).lower():
            hits.append(("text", current[0], current[1], body))

    for run_id, turn, piece in rows:
        if (run_id, turn) != current:
            close()
            current, parts = (run_id, turn), []
        parts.append(piece)
    close()
    return hits


def search(conn: sqlite3.Connection, text: str, limit: int) -> list[SearchHit]:
    """Matches of ``text`` anywhere in the log, newest run first, then in the run's order."""
    if not text:
        return []
    union = " UNION ALL ".join(
        f"SELECT '{where}', s.run_id, s.turn, s.body FROM ({sql}) AS s WHERE s.body LIKE :pattern ESCAPE '\\'"
        for where, sql in _SOURCES
    )
    found: list[tuple[Any, ...]] = conn.execute(union, {"pattern": _like(text)}).fetchall()
    found += _model_text_matches(conn, text)
    if not found:
        return []
    ids = sorted({row[1] for row in found})
    runs = {
        run_id: (started, rowid)
        for run_id, started, rowid in conn.execute(
            f"SELECT id, started_at, rowid FROM runs WHERE id IN ({','.join('?' * len(ids))})", ids
        )
    }
    return rank_hits(found, runs, text, limit)


def rank_hits(
    found: list[tuple[Any, ...]], runs: dict[str, tuple[float, int]], text: str, limit: int
) -> list[SearchHit]:
    """``found`` (where, run_id, turn, body) as hits: newest run first, then in the run's order.

    ``runs`` maps each run id to (started_at, insertion order).
    """
    found.sort(key=lambda r: (-runs[r[1]][0], -runs[r[1]][1], r[2] or 0, _ORDER[r[0]]))
    return [
        SearchHit(
            run_id=run_id,
            started_at=datetime.fromtimestamp(runs[run_id][0], UTC),
            where=where,
            turn=turn,
            excerpt=_excerpt(body, text),
        )
        for where, run_id, turn, body in found[:limit]
    ]


def _median(values: list[float]) -> float | None:
    return round(statistics.median(values), 3) if values else None


def _tool_stats(conn: sqlite3.Connection) -> tuple[ToolStats, ...]:
    return tool_stats_of(
        conn.execute(
            "SELECT json_extract(data, '$.name'), json_extract(data, '$.is_error'),"
            " json_extract(data, '$.is_rejected'), json_extract(data, '$.duration_ms')"
            " FROM events WHERE type = 'tool_result'"
        )
    )


def tool_stats_of(rows: Iterable[Sequence[Any]]) -> tuple[ToolStats, ...]:
    """Per-tool figures from (name, is_error, is_rejected, duration_ms) of every ``tool_result``."""
    calls: dict[str, list[int]] = defaultdict(lambda: [0, 0, 0])  # calls, errors, rejected
    durations: dict[str, list[float]] = defaultdict(list)
    for name, is_error, is_rejected, duration in rows:
        counts = calls[name]
        counts[0] += 1
        counts[1] += int(is_error)
        counts[2] += int(is_rejected)
        if not is_rejected and duration:  # rejected and unexecuted calls took no time of their own
            durations[name].append(duration)
    ranked = sorted(calls.items(), key=lambda item: (-item[1][0], item[0]))
    return tuple(
        ToolStats(
            name=name,
            calls=n,
            errors=errors,
            rejected=rejected,
            error_rate=round(errors / n, 4),
            median_duration_ms=_median(durations[name]),
        )
        for name, (n, errors, rejected) in ranked
    )


def _reviewer_stats(conn: sqlite3.Connection) -> tuple[ReviewerStats, ...]:
    return reviewer_stats_of(
        conn.execute(
            "SELECT json_extract(v.value, '$.reviewer'), json_extract(v.value, '$.verdict'),"
            " json_extract(v.value, '$.latency_ms') FROM events e, json_each(e.data, '$.votes') v"
            " WHERE e.type = 'review'"
        )
    )


def reviewer_stats_of(rows: Iterable[Sequence[Any]]) -> tuple[ReviewerStats, ...]:
    """Per-reviewer figures from (reviewer, verdict, latency_ms) of every vote."""
    verdicts: dict[str, dict[str, int]] = defaultdict(lambda: defaultdict(int))
    latencies: dict[str, list[float]] = defaultdict(list)
    for reviewer, verdict, latency in rows:
        verdicts[reviewer][verdict] += 1
        if latency is not None:
            latencies[reviewer].append(latency)
    result = []
    for reviewer in sorted(verdicts):
        counts = verdicts[reviewer]
        votes = sum(counts.values())
        result.append(
            ReviewerStats(
                reviewer=reviewer,
                votes=votes,
                approvals=counts["approve"],
                rejections=counts["reject"],
                errors=votes - counts["approve"] - counts["reject"],
                approval_rate=round(counts["approve"] / votes, 4),
                median_latency_ms=_median(latencies[reviewer]),
            )
        )
    return tuple(result)


def stats(conn: sqlite3.Connection) -> StoreStats:
    """Totals over the log (tool figures count every call that got a result)."""
    by_status = {
        status or INTERRUPTED: n
        for status, n in conn.execute("SELECT stop_reason, COUNT(*) FROM runs GROUP BY stop_reason")
    }
    runs, turns, input_tokens, output_tokens, reviewer_input, reviewer_output, cost, unpriced = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(turns), 0), COALESCE(SUM(input_tokens), 0),"
        " COALESCE(SUM(output_tokens), 0), COALESCE(SUM(reviewer_input_tokens), 0),"
        " COALESCE(SUM(reviewer_output_tokens), 0), SUM(cost),"
        " COUNT(*) FILTER (WHERE cost IS NULL AND stop_reason IS NOT NULL) FROM runs"
    ).fetchone()
    tools = _tool_stats(conn)
    decisions = dict(
        conn.execute(
            "SELECT json_extract(data, '$.decided_by'), COUNT(*) FROM events WHERE type = 'review'"
            " GROUP BY 1 ORDER BY 1"
        )
    )
    return StoreStats(
        runs=runs,
        runs_by_status=by_status,
        turns=turns,
        tool_calls=sum(t.calls for t in tools),
        usage=RunUsage(
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            reviewer_input_tokens=reviewer_input,
            reviewer_output_tokens=reviewer_output,
        ),
        cost=None if cost is None else round(cost, 8),
        unpriced_runs=unpriced,
        tools=tools,
        reviewers=_reviewer_stats(conn),
        decisions_by=decisions,
    )
