"""A model that reuses a call id in a later turn (issue 32): each call is recorded apart, none shadows another.

Before: a later high-risk call reusing an approved call's id left the run ``awaiting_approval``
with nothing pending, and ``approve`` and ``cancel`` refused it. Now the run records the reused id
as a fresh one (``w1_2``): it waits for its own decision, and runs exactly when approved.
"""

from __future__ import annotations

import json
import sqlite3

from tests.e2e.conftest import Cli
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

SCRIPT = {
    "conversation": "continue",
    "turns": [
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "one.txt", "content": "one\n"}, "id": "w1"}]},
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "two.txt", "content": "two\n"}, "id": "w1"}]},
        {"text": "both written"},
    ],
}


def test_a_reused_id_waits_for_its_own_decision_and_runs_when_approved(cli: Cli) -> None:
    cli.write("s.json", json.dumps(SCRIPT))
    first = cli("run", "--defer", "--model", "scripted:s.json", "--json", "write two files")
    assert first.code == 4, first.stderr
    run_id = first.events()[0]["run_id"]

    again = cli("approve", run_id, "--json")
    assert again.code == 4, again.stderr  # the second write, under the reused id, waits for its own decision
    assert (cli.workspace / "one.txt").read_text() == "one\n" and not (cli.workspace / "two.txt").exists()
    waiting = [e for e in again.events() if e["type"] == "approval_requested"]
    assert [(e["call_id"], e["arguments"]["path"]) for e in waiting] == [("w1_2", "two.txt")]

    pending = [json.loads(line) for line in cli("pending", run_id, "--json").stdout.splitlines()]
    assert [row["call_id"] for row in pending] == ["w1_2"]
    done = cli("approve", run_id, "--json")
    assert done.code == 0, done.stderr
    assert (cli.workspace / "two.txt").read_text() == "two\n"
    assert done.events()[-1]["output"] == "both written"


def test_a_reused_id_can_be_rejected(cli: Cli) -> None:
    cli.write("s.json", json.dumps(SCRIPT))
    run_id = cli("run", "--defer", "--model", "scripted:s.json", "--json", "write").events()[0]["run_id"]
    assert cli("approve", run_id).code == 4
    rejected = cli("reject", run_id, "--reason", "not two", "--json")
    assert rejected.code == 0, rejected.stderr
    assert not (cli.workspace / "two.txt").exists()
    results = [e for e in rejected.events() if e["type"] == "tool_result"]
    assert [(e["call_id"], e["outcome"]) for e in results] == [("w1_2", "rejected")]


def test_the_live_run_answers_the_models_own_id_on_the_wire(cli: Cli) -> None:
    server: ScriptedHttpServer = openai_server()
    try:
        cli.write(
            "quorum.toml",
            f'[providers.local]\ntype = "openai"\nbase_url = "{server.url}/v1"\napi_key = "x"\nmax_retries = 0\n',
        )
        cli.write("a.txt", "a\n")
        cli.write("b.txt", "b\n")
        read_a, read_b = Call("call_1", "read_file", {"path": "a.txt"}), Call("call_1", "read_file", {"path": "b.txt"})
        server.enqueue(Turn(calls=(read_a,)), Turn(calls=(read_b,)), Turn(text="a and b"))
        result = cli("run", "--model", "local:m", "--json", "read both")
        assert result.code == 0, result.stderr
        assert [e["id"] for e in result.events() if e["type"] == "tool_call"] == ["call_1", "call_1_2"]
        answers = [m for m in server.bodies()[2]["messages"] if m["role"] == "tool"]
        assert [(m["tool_call_id"], m["content"]) for m in answers] == [("call_1", "a\n"), ("call_1", "b\n")]
    finally:
        server.stop()


def test_a_run_left_waiting_with_nothing_pending_can_be_cancelled(cli: Cli) -> None:
    """A run an older version left ``awaiting_approval`` with its only call already decided (the wedge)."""
    from tests.e2e.serve_client import Server

    cli.write("s.json", json.dumps(SCRIPT))
    run_id = cli("run", "--defer", "--model", "scripted:s.json", "--json", "write").events()[0]["run_id"]
    db = sqlite3.connect(cli.env["QUORUM_DB"])
    with db:  # the old wedge: a decision recorded for the waiting call's id, by an earlier call under it
        db.execute(
            "INSERT INTO decisions (run_id, call_id, approved, by, reason, decided_at) VALUES (?, 'w1', 1, 'x', '', 0)",
            (run_id,),
        )
    db.close()
    assert cli("approve", run_id).code == 2  # nothing pending to decide

    server = Server(cli)
    try:
        assert server.http.post(f"/v1/runs/{run_id}/cancel").status_code == 202
        assert list(server.events(run_id))[-1].data["stop_reason"] == "cancelled"
        assert server.http.get(f"/v1/runs/{run_id}").json()["status"] == "cancelled"
    finally:
        server.kill()
    assert not (cli.workspace / "one.txt").exists()
