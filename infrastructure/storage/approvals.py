"""Calls waiting for a person in the run log: which are pending, and claiming decisions (every dialect).

A call is pending while its run is stopped ``awaiting_approval``, an ``approval_requested``
event names it, and it has neither a ``tool_result`` nor a row in ``decisions``. A claim runs in
the store's write transaction: it locks the run's row where the backend locks rows (PostgreSQL's
``FOR UPDATE``; SQLite's ``BEGIN IMMEDIATE`` already holds the whole log), re-reads all of that,
inserts the decisions (``PRIMARY KEY (run_id, call_id)``: a call is decided once, ever) and marks
the run as being continued (its stop reason cleared). So of two processes claiming the same run,
on any machines, the second waits for the first and then finds it no longer awaiting approval.
"""

from __future__ import annotations

import time
from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any

from pydantic import TypeAdapter

from quorum.application.ports.approvals import CallDecision, PendingCall
from quorum.domain.errors import UsageError
from quorum.domain.events import ApprovalRequested, RunStopReason
from quorum.infrastructure.storage.operations import Operations, SqlConnection

_REQUEST: TypeAdapter[ApprovalRequested] = TypeAdapter(ApprovalRequested)

AWAITING = RunStopReason.AWAITING_APPROVAL.value


def pending(conn: SqlConnection, ops: Operations, run_id: str | None) -> list[PendingCall]:
    """Pending calls of ``run_id`` (every run when None): oldest run first, then in request order.

    A call requested again (a continued run that stopped again) is listed once, at its first request.
    """
    call_id, result_call_id = ops.json("e.data", "call_id"), ops.json("t.data", "call_id")
    sql = (
        f"SELECT e.run_id, r.task, e.at, {ops.text('e.data')}, {call_id} AS call_id"
        " FROM events e JOIN runs r ON r.id = e.run_id"
        " WHERE e.type = 'approval_requested' AND r.stop_reason = ?"
        " AND NOT EXISTS (SELECT 1 FROM events t WHERE t.run_id = e.run_id AND t.type = 'tool_result'"
        f" AND {result_call_id} = {call_id})"
        f" AND NOT EXISTS (SELECT 1 FROM decisions d WHERE d.run_id = e.run_id AND d.call_id = {call_id})"
        + (" AND e.run_id = ?" if run_id is not None else "")
        + f" ORDER BY r.started_at, r.{ops.order}, e.seq"
    )
    rows = conn.execute(ops.sql(sql), (AWAITING, run_id) if run_id is not None else (AWAITING,)).fetchall()
    return _pending_calls(rows)


def _pending_calls(rows: Iterable[Sequence[Any]]) -> list[PendingCall]:
    """``PendingCall``s from ``(run_id, task, at, request JSON, call_id)`` rows in request order.

    A call requested again (a continued run that stopped again) is listed once, at its first request.
    """
    seen: set[tuple[str, str]] = set()
    found: list[PendingCall] = []
    for rid, task, at, data, call_id in rows:
        if (rid, call_id) in seen:
            continue
        seen.add((rid, call_id))
        found.append(
            PendingCall(
                run_id=rid,
                task=task,
                requested_at=datetime.fromtimestamp(at, UTC),
                request=_REQUEST.validate_json(data),
            )
        )
    return found


def claim(conn: SqlConnection, ops: Operations, run_id: str, decisions: Sequence[CallDecision]) -> None:
    """Record ``decisions`` and take over the run, inside the caller's write transaction.

    Raises:
        UsageError: see ``PendingApprovals.claim``; the caller rolls back.
    """
    # The row lock serializes claimers of this run across connections and machines: the second
    # one waits here, then reads the run as the first one left it.
    row = conn.execute(ops.sql("SELECT stop_reason FROM runs WHERE id = ?" + ops.lock_row), (run_id,)).fetchone()
    rows = conn.execute(ops.sql("SELECT call_id, decision_id FROM decisions WHERE run_id = ?"), (run_id,)).fetchall()
    if same_claim({str(call): decision for call, decision in rows}, decisions):
        return  # this claim (its decision id) was recorded by an earlier attempt
    if row is None:
        raise UsageError(f"there is no run {run_id!r} in the run log")
    if row[0] != AWAITING:
        status = row[0] or "being continued, or interrupted"
        raise UsageError(f"run {run_id} is not waiting for approval (status: {status}); nothing was decided")
    open_ids = {p.request.call_id for p in pending(conn, ops, run_id)}
    gone = [d.call_id for d in decisions if d.call_id not in open_ids]
    if gone or not decisions:
        raise UsageError(
            f"run {run_id}: {', '.join(gone) or 'no call'} is no longer pending (already decided or executed);"
            " nothing was decided"
        )
    now = time.time()
    cursor = conn.cursor()
    try:
        cursor.executemany(
            ops.sql(
                "INSERT INTO decisions (run_id, call_id, approved, by, reason, decided_at, decision_id)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)"
            ),
            [(run_id, d.call_id, d.approved, d.by, d.reason, now, d.decision_id) for d in decisions],
        )
    finally:
        cursor.close()
    conn.execute(ops.sql("UPDATE runs SET stop_reason = NULL, ended_at = NULL WHERE id = ?"), (run_id,))


def same_claim(recorded: dict[str, Any], decisions: Sequence[CallDecision]) -> bool:
    """Whether ``recorded`` (call id → decision id in the log) already holds every one of ``decisions``."""
    if not decisions or any(d.decision_id is None for d in decisions):
        return False
    return all(recorded.get(d.call_id) == d.decision_id for d in decisions)
