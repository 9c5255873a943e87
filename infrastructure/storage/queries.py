"""Read queries over the run log, written once for every dialect: run summaries, text search, statistics.

Search and statistics scan the events with the backend's JSON functions (``operations.py``)
rather than keep extra tables up to date on every commit: writes stay cheap (decision 031), and a
local log of many thousands of runs is still scanned in well under a second. The rows are folded
into read models by the same Python for both backends (``figures.py``).
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from quorum.application.ports.run_store import INTERRUPTED, RunSummary, SearchHit, StoreStats
from quorum.domain.responses import RunUsage
from quorum.infrastructure.storage.figures import like, model_text_hits, rank_hits, reviewer_stats_of, tool_stats_of
from quorum.infrastructure.storage.operations import Operations, SqlConnection

SUMMARY = """
SELECT r.id, r.task, r.model, r.workspace, r.config_digest, r.parent_run_id, r.started_at, r.ended_at,
       r.stop_reason, r.detail, r.output, r.turns, r.input_tokens, r.output_tokens,
       r.reviewer_input_tokens, r.reviewer_output_tokens, r.cost,
       (SELECT COUNT(*) FROM events e WHERE e.run_id = r.id AND e.type = 'tool_call'), r.engine,
       r.cache_read_input_tokens, r.cache_write_input_tokens, r.subagent
FROM runs r
"""
"""The columns ``summary`` reads, of the runs aliased ``r`` (a caller appends its clauses)."""


def time(value: float) -> datetime:
    """A stored time (seconds since the epoch) as an aware datetime."""
    return datetime.fromtimestamp(value, UTC)


def summary(row: Sequence[Any]) -> RunSummary:
    """The ``RunSummary`` of a row of ``SUMMARY`` (PostgreSQL's sums and counts may come as other numbers)."""
    (run_id, task, model, workspace, digest, parent, started, ended, stop, detail, output, turns,
     input_tokens, output_tokens, reviewer_input_tokens, reviewer_output_tokens, cost, tool_calls,
     engine, cache_read, cache_write, subagent) = row  # fmt: skip
    return RunSummary(
        subagent=subagent,
        engine=engine or "local",
        run_id=run_id,
        task=task,
        model=model,
        workspace=workspace,
        config_digest=digest,
        parent_run_id=parent,
        started_at=time(started),
        ended_at=None if ended is None else time(ended),
        status=stop or INTERRUPTED,
        detail=detail,
        output=output,
        turns=turns,
        tool_calls=int(tool_calls),
        usage=RunUsage(
            input_tokens=int(input_tokens),
            output_tokens=int(output_tokens),
            cache_read_input_tokens=int(cache_read),
            cache_write_input_tokens=int(cache_write),
            reviewer_input_tokens=int(reviewer_input_tokens),
            reviewer_output_tokens=int(reviewer_output_tokens),
        ),
        cost=cost,
    )


def _sources(ops: Operations) -> tuple[tuple[str, str], ...]:
    """(where, SQL selecting run_id, turn and the searched body) of every searchable text but the model's."""
    votes, vote = ops.elements("e.data", "votes", "v")
    return (
        ("task", f"SELECT id AS run_id, {ops.null('integer')} AS turn, task AS body FROM runs"),
        ("output", f"SELECT id AS run_id, {ops.null('integer')} AS turn, output AS body FROM runs"),
        ("tool_call", f"SELECT run_id, turn, {ops.json('data', 'name')} || ' ' || {ops.json('data', 'arguments')}"
         " AS body FROM events WHERE type = 'tool_call'"),
        ("tool_result", f"SELECT run_id, turn, {ops.json('data', 'output')} AS body FROM events"
         " WHERE type = 'tool_result'"),
        ("review", f"SELECT run_id, turn, {ops.json('data', 'reason')} AS body FROM events WHERE type = 'review'"),
        ("review", f"SELECT e.run_id AS run_id, e.turn AS turn,"
         f" {ops.json(vote, 'reviewer')} || ': ' || {ops.json(vote, 'reason')} AS body"
         f" FROM events e, {votes} WHERE e.type = 'review'"),
    )  # fmt: skip


def search(conn: SqlConnection, ops: Operations, text: str, limit: int) -> list[SearchHit]:
    """Matches of ``text`` anywhere in the log, newest run first, then in the run's order."""
    if not text:
        return []
    sources = _sources(ops)
    union = " UNION ALL ".join(
        f"SELECT '{where}', s.run_id, s.turn, s.body FROM ({sql}) AS s WHERE {ops.contains('s.body')}"
        for where, sql in sources
    )
    found: list[tuple[Any, ...]] = list(conn.execute(ops.sql(union), [like(text)] * len(sources)).fetchall())
    deltas = f"SELECT run_id, turn, {ops.json('data', 'text')} FROM events WHERE type = 'text' ORDER BY run_id, seq"
    found += model_text_hits(conn.execute(deltas), text)  # a match may span text deltas
    if not found:
        return []
    among, values = ops.one_of("id", sorted({row[1] for row in found}))
    rows = conn.execute(ops.sql(f"SELECT id, started_at, {ops.order} FROM runs WHERE {among}"), values)
    return rank_hits(found, {run_id: (started, order) for run_id, started, order in rows}, text, limit)


def stats(conn: SqlConnection, ops: Operations) -> StoreStats:
    """Totals over the log (tool figures count every call that got a result)."""
    by_status = {
        status or INTERRUPTED: int(n)
        for status, n in conn.execute("SELECT stop_reason, COUNT(*) FROM runs GROUP BY stop_reason")
    }
    (runs, turns, input_tokens, output_tokens, reviewer_input, reviewer_output, cost, unpriced, cache_read,
     cache_write) = conn.execute(
        "SELECT COUNT(*), COALESCE(SUM(turns), 0), COALESCE(SUM(input_tokens), 0),"
        " COALESCE(SUM(output_tokens), 0), COALESCE(SUM(reviewer_input_tokens), 0),"
        " COALESCE(SUM(reviewer_output_tokens), 0), SUM(cost),"
        " COUNT(*) FILTER (WHERE cost IS NULL AND stop_reason IS NOT NULL),"
        " COALESCE(SUM(cache_read_input_tokens), 0), COALESCE(SUM(cache_write_input_tokens), 0) FROM runs"
    ).fetchone()  # fmt: skip
    tools = tool_stats_of(
        conn.execute(
            f"SELECT {ops.json('data', 'name')}, {ops.json('data', 'is_error', 'boolean')},"
            f" {ops.json('data', 'is_rejected', 'boolean')}, {ops.json('data', 'duration_ms', 'double precision')}"
            " FROM events WHERE type = 'tool_result'"
        )
    )
    votes, vote = ops.elements("e.data", "votes", "v")
    reviewers = reviewer_stats_of(
        conn.execute(
            f"SELECT {ops.json(vote, 'reviewer')}, {ops.json(vote, 'verdict')},"
            f" {ops.json(vote, 'latency_ms', 'double precision')} FROM events e, {votes} WHERE e.type = 'review'"
        )
    )
    decided_by = ops.json("data", "decided_by")
    decisions = {
        by: int(n)
        for by, n in conn.execute(
            f"SELECT {decided_by}, COUNT(*) FROM events WHERE type = 'review' GROUP BY 1 ORDER BY 1"
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
            cache_read_input_tokens=int(cache_read),
            cache_write_input_tokens=int(cache_write),
            reviewer_input_tokens=int(reviewer_input),
            reviewer_output_tokens=int(reviewer_output),
        ),
        cost=None if cost is None else round(float(cost), 8),
        unpriced_runs=int(unpriced),
        tools=tools,
        reviewers=reviewers,
        decisions_by=decisions,
    )
