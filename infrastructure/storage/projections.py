"""Writing a batch of run events: the events themselves and the rows derived from them.

Everything here runs inside the caller's write transaction, so a batch is recorded whole or not at
all, and the projections never disagree with the events.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence

from quorum.application.ports.run_store import RecordedEvent
from quorum.domain.events import (
    ReviewEvent,
    RunFinished,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
    TurnStarted,
)


def project(conn: sqlite3.Connection, run_id: str, turn: int, events: Sequence[RecordedEvent]) -> int:
    """Insert ``events`` of ``run_id`` (whose current turn is ``turn``); returns the turn after them."""
    first_turn = turn
    rows: list[tuple[object, ...]] = []
    texts: dict[int, list[str]] = {}
    calls: list[tuple[object, ...]] = []
    results: list[tuple[object, ...]] = []
    votes: list[tuple[object, ...]] = []
    for recorded in events:
        event, seq = recorded.event, recorded.seq
        if isinstance(event, TurnStarted):
            turn = event.turn
        rows.append((run_id, seq, recorded.at.timestamp(), event.type, turn, event.model_dump_json()))
        if isinstance(event, TextDelta):
            texts.setdefault(turn, []).append(event.text)
        elif isinstance(event, ToolCallEvent):
            arguments = json.dumps(event.arguments, ensure_ascii=False, default=str)
            calls.append((run_id, seq, turn, event.id, event.name, arguments, event.risk.value))
        elif isinstance(event, ToolResultEvent):
            results.append(
                (run_id, seq, turn, event.call_id, event.name, event.output, event.is_error,
                 event.is_rejected, event.duration_ms)
            )  # fmt: skip
        elif isinstance(event, ReviewEvent):
            conn.execute(
                "INSERT INTO reviews (run_id, seq, turn, call_id, name, approved, decided_by, rule, reason)"
                " VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
                (run_id, seq, turn, event.call_id, event.name, event.approved, event.decided_by,
                 event.rule, event.reason),
            )  # fmt: skip
            votes.extend(
                (run_id, seq, i, v.reviewer, v.verdict.value, v.reason, v.latency_ms)
                for i, v in enumerate(event.votes)
            )
    conn.executemany("INSERT INTO events (run_id, seq, at, type, turn, data) VALUES (?, ?, ?, ?, ?, ?)", rows)
    if calls:
        conn.executemany(
            "INSERT INTO tool_calls (run_id, seq, turn, call_id, name, arguments, risk)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            calls,
        )
    if results:
        conn.executemany(
            "INSERT INTO tool_results (run_id, seq, turn, call_id, name, output, is_error, is_rejected,"
            " duration_ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
            results,
        )
    if votes:
        conn.executemany(
            "INSERT INTO votes (run_id, seq, position, reviewer, verdict, reason, latency_ms)"
            " VALUES (?, ?, ?, ?, ?, ?, ?)",
            votes,
        )
    if texts:
        conn.executemany(
            "INSERT INTO turn_texts (run_id, turn, text) VALUES (?, ?, ?)"
            " ON CONFLICT (run_id, turn) DO UPDATE SET text = text || excluded.text",
            [(run_id, t, "".join(parts)) for t, parts in texts.items()],
        )
    finished = next((e for e in events if isinstance(e.event, RunFinished)), None)
    if finished is not None or turn != first_turn:  # the run row changes only then
        _update_run(conn, run_id, turn, finished)
    return turn


def _update_run(conn: sqlite3.Connection, run_id: str, turn: int, finished: RecordedEvent | None) -> None:
    if finished is not None:
        last, at = finished.event, finished.at.timestamp()
        assert isinstance(last, RunFinished)
        conn.execute(
            "UPDATE runs SET turns = ?, ended_at = ?, stop_reason = ?, detail = ?, output = ?,"
            " input_tokens = ?, output_tokens = ? WHERE id = ?",
            (last.turns, at, last.stop_reason.value, last.detail, last.output,
             last.usage.input_tokens, last.usage.output_tokens, run_id),
        )  # fmt: skip
    else:
        conn.execute("UPDATE runs SET turns = ? WHERE id = ?", (turn, run_id))
