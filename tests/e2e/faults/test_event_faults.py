"""Text no output can carry: lone surrogates from a model's JSON reach every sink as U+FFFD."""

from __future__ import annotations

import sqlite3

from tests.e2e.conftest import Cli
from tests.e2e.faults.harness import run_fault, scripted

TURNS = [
    {
        "text": "start \ud800",
        "tool_calls": [
            {"name": "read_file", "arguments": {"path": "\udfffx"}},
            {"name": "read_file", "arguments": {"path": "a", "\ud83d": 1}},
        ],
    },
    {"text": "done \udc00"},
]


def test_lone_surrogates_never_break_json_output_or_the_run_log(cli: Cli) -> None:
    model = scripted(cli, TURNS)
    result = run_fault(cli, "run", "--json", "--model", model, "go", expect_code=0, timeout=30)
    events = result.events()
    call, extra = [e for e in events if e["type"] == "tool_call"]
    assert call["arguments"]["path"] == "\ufffdx" and "\ufffd" in extra["arguments"]
    results = {e["call_id"]: e for e in events if e["type"] == "tool_result"}
    outcome, invalid = results[call["id"]], results[extra["id"]]
    assert outcome["is_error"] and "not valid Unicode" in outcome["output"]
    assert invalid["is_error"] and "the call was not executed" in invalid["output"]
    assert events[-1]["output"] == "done \ufffd"
    assert "unserializable" not in result.stdout and "could not be written" not in result.stderr
    with sqlite3.connect(cli.env["QUORUM_DB"]) as db:
        (count,) = db.execute("SELECT COUNT(*) FROM events").fetchone()
    assert count == len(events)


def test_lone_surrogates_in_human_output(cli: Cli) -> None:
    model = scripted(cli, TURNS)
    result = run_fault(cli, "run", "--model", model, "go", expect_code=0, timeout=30, started=False)
    assert "done" in result.stdout and "could not be written" not in result.stderr
