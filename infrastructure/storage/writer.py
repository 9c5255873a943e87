"""Writing a batch of run events: one row per event, and the run's row when its turn or end changes.

Runs inside the caller's write transaction, so a batch is recorded whole or not at all. Nothing
else is written per event: listings, search and statistics are queries over the events
(``queries.py``), which keeps a commit to about two pages (see decision 031).
"""

from __future__ import annotations

from collections.abc import Sequence

from quorum.application.ports.run_store import RecordedEvent
from quorum.domain.events import RunFinished, TurnStarted
from quorum.infrastructure.storage.operations import Operations, SqlConnection


def write_events(conn: SqlConnection, ops: Operations, run_id: str, turn: int, events: Sequence[RecordedEvent]) -> int:
    """Insert ``events`` of ``run_id`` (whose current turn is ``turn``); returns the turn after them."""
    first_turn = turn
    finished: RecordedEvent | None = None
    rows: list[tuple[object, ...]] = []
    for recorded in events:
        event = recorded.event
        if isinstance(event, TurnStarted):
            turn = event.turn
        elif isinstance(event, RunFinished):
            finished = recorded
        rows.append((run_id, recorded.seq, recorded.at.timestamp(), event.type, turn, event.model_dump_json()))
    cursor = conn.cursor()
    try:
        insert = "INSERT INTO events (run_id, seq, at, type, turn, data) VALUES (?, ?, ?, ?, ?, ?)"
        cursor.executemany(ops.sql(insert), rows)
    finally:
        cursor.close()
    if finished is not None:
        last = finished.event
        assert isinstance(last, RunFinished)
        conn.execute(
            ops.sql(
                "UPDATE runs SET turns = ?, ended_at = ?, stop_reason = ?, detail = ?, output = ?,"
                " input_tokens = ?, output_tokens = ?, reviewer_input_tokens = ?, reviewer_output_tokens = ?,"
                " cost = ?, cache_read_input_tokens = ?, cache_write_input_tokens = ? WHERE id = ?"
            ),
            (last.turns, finished.at.timestamp(), last.stop_reason.value, last.detail, last.output,
             last.usage.input_tokens, last.usage.output_tokens, last.usage.reviewer_input_tokens,
             last.usage.reviewer_output_tokens, last.cost, last.usage.cache_read_input_tokens,
             last.usage.cache_write_input_tokens, run_id),
        )  # fmt: skip
    elif turn != first_turn:  # so an interrupted run still shows how far it got
        conn.execute(ops.sql("UPDATE runs SET turns = ? WHERE id = ?"), (turn, run_id))
    return turn
