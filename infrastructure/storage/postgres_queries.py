"""Read queries over a PostgreSQL run log: text search, statistics and pending calls.

The SQL of ``queries.py`` and ``approvals.py`` in PostgreSQL's dialect (``->>`` for
``json_extract``, ``json_array_elements`` for ``json_each``, ``ILIKE``); the ranking and the figures
are computed by the same functions as for SQLite, so both stores answer alike.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quorum.application.ports.approvals import PendingCall
from quorum.application.ports.run_store import INTERRUPTED, SearchHit, StoreStats
from quorum.domain.events import RunStopReason
from quorum.domain.responses import RunUsage
from quorum.infrastructure.storage.approvals import pending_calls
from quorum.infrastructure.storage.queries import like, model_text_hits, rank_hits, reviewer_stats_of, tool_stats_of

if TYPE_CHECKING:
    import psycopg

AWAITING = RunStopReason.AWAITING_APPROVAL.value

_SOURCES = (
    ("task", "SELECT id AS run_id, NULL::integer AS turn, task AS body FROM runs"),
    ("output", "SELECT id AS run_id, NULL::integer AS turn, output AS body FROM runs"),
    ("tool_call", "SELECT run_id, turn, (data->>'name') || ' ' || (data->>'arguments') AS body"
     " FROM events WHERE type = 'tool_call'"),
    ("tool_result", "SELECT run_id, turn, data->>'output' AS body FROM events WHERE type = 'tool_result'"),
    ("review", "SELECT run_id, turn, data->>'reason' AS body FROM events WHERE type = 'review'"),
    ("review", "SELECT e.run_id AS run_id, e.turn AS turn, (v->>'reviewer') || ': ' || (v->>'reason') AS body"
     " FROM events e, json_array_elements(e.data->'votes') v WHERE e.type = 'review'"),
)  # fmt: skip

_PENDING = """
SELECT e.run_id, r.task, e.at, e.data::text, e.data->>'call_id' AS call_id
FROM events e JOIN runs r ON r.id = e.run_id
WHERE e.type = 'approval_requested' AND r.stop_reason = %(awaiting)s
  AND NOT EXISTS (SELECT 1 FROM events t WHERE t.run_id = e.run_id AND t.type = 'tool_result'
                  AND t.data->>'call_id' = e.data->>'call_id')
  AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.run_id = e.run_id AND d.call_id = e.data->>'call_id')
"""


def search(conn: psycopg.Connection[tuple[Any, ...]], text: str, limit: int) -> list[SearchHit]:
    """Matches of ``text`` anywhere in the log, newest run first, then in the run's order."""
    if not text:
        return []
    union = " UNION ALL ".join(
        f"SELECT '{where}', s.run_id, s.turn, s.body FROM ({sql}) AS s WHERE s.body ILIKE %(pattern)s"
        for where, sql in _SOURCES
    )
    found: list[tuple[Any, ...]] = list(conn.execute(union.encode(), {"pattern": like(text)}).fetchall())
    found += model_text_hits(
        conn.execute("SELECT run_id, turn, data->>'text' FROM events WHERE type = 'text' ORDER BY run_id, seq"),
        text,
    )
    if not found:
        return []
    ids = sorted({row[1] for row in found})
    runs = {
        run_id: (started, ord_)
        for run_id, started, ord_ in conn.execute("SELECT id, started_at, ord FROM runs WHERE id = ANY(%s)", (ids,))
    }
    return rank_hits(found, runs, text, limit)


def stats(conn: psycopg.Connection[tuple[Any, ...]]) -> StoreStats:
    """Totals over the log, as ``queries.stats`` computes them for SQLite."""
    by_status = {
        status or INTERRUPTED: int(n)
        for status, n in conn.execute("SELECT stop_reason, COUNT(*) FROM runs GROUP BY stop_reason")
    }
    row = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(turns), 0), COALESCE(SUM(input_tokens), 0),"
        " COALESCE(SUM(output_tokens), 0), COALESCE(SUM(reviewer_input_tokens), 0),"
        " COALESCE(SUM(reviewer_output_tokens), 0), SUM(cost),"
        " COUNT(*) FILTER (WHERE cost IS NULL AND stop_reason IS NOT NULL) FROM runs"
    ).fetchone()
    assert row is not None
    runs, turns, input_tokens, output_tokens, reviewer_input, reviewer_output, cost, unpriced = row
    tools = tool_stats_of(
        conn.execute(
            "SELECT data->>'name', (data->>'is_error')::boolean, (data->>'is_rejected')::boolean,"
            " (data->>'duration_ms')::double precision FROM events WHERE type = 'tool_result'"
        )
    )
    reviewers = reviewer_stats_of(
        conn.execute(
            "SELECT v->>'reviewer', v->>'verdict', (v->>'latency_ms')::double precision"
            " FROM events e, json_array_elements(e.data->'votes') v WHERE e.type = 'review'"
        )
    )
    decisions = {
        by: int(n)
        for by, n in conn.execute(
            "SELECT data->>'decided_by', COUNT(*) FROM events WHERE type = 'review' GROUP BY 1 ORDER BY 1"
        )
    }
    return StoreStats(
        runs=int(runs),
        runs_by_status=by_status,
        turns=int(turns),
        tool_calls=sum(t.calls for t in tools),
        usage=RunUsage(
            input_tokens=int(input_tokens),
            output_tokens=int(output_tokens),
            reviewer_input_tokens=int(reviewer_input),
            reviewer_output_tokens=int(reviewer_output),
        ),
        cost=None if cost is None else round(float(cost), 8),
        unpriced_runs=int(unpriced),
        tools=tools,
        reviewers=reviewers,
        decisions_by=decisions,
    )


def pending(conn: psycopg.Connection[tuple[Any, ...]], run_id: str | None) -> list[PendingCall]:
    """Pending calls of ``run_id`` (every run when None), as ``approvals.pending`` lists them."""
    sql = (
        _PENDING + (" AND e.run_id = %(run_id)s" if run_id is not None else "") + " ORDER BY r.started_at, r.ord, e.seq"
    )
    rows = conn.execute(sql.encode(), {"awaiting": AWAITING, "run_id": run_id}).fetchall()
    return pending_calls(rows)
