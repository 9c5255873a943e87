"""Plan mode through ``quorum serve``: ``"plan": true`` in ``POST /v1/runs``, the plan decided as a pending call."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server, finished, write_script

pytest.importorskip("starlette")

PLAN = {"summary": "Write one.txt", "steps": [{"description": "Write one.txt", "files": ["one.txt"]}]}
TURNS = [
    {
        "tool_calls": [
            {"name": "write_file", "arguments": {"path": "one.txt", "content": "early\n"}, "id": "w0"},
            {"name": "propose_plan", "arguments": PLAN, "id": "p1"},
        ]
    },
    {"tool_calls": [{"name": "write_file", "arguments": {"path": "one.txt", "content": "one\n"}, "id": "w1"}]},
    {"text": "all done"},
]


@pytest.fixture
def server(cli: Cli) -> Iterator[Server]:
    running = Server(cli)
    yield running
    if running.proc.poll() is None:
        running.kill()


def test_a_plan_started_through_the_api_is_approved_from_its_pending_card_then_carried_out(
    cli: Cli, server: Server
) -> None:
    run_id = server.start("write one file", write_script(cli, TURNS), plan=True)
    first = server.until_waiting(run_id)
    assert [m.data["call_id"] for m in first if m.type == "plan_proposed"] == ["p1"]
    assert not (cli.workspace / "one.txt").exists()  # the early write was not even offered
    pending = server.http.get(f"/v1/runs/{run_id}/pending").json()["items"]
    assert [(p["call_id"], p["name"]) for p in pending] == [("p1", "propose_plan")]
    assert pending[0]["view"][:2] == ["proposed plan:", "  Write one.txt"]  # what the card shows

    assert server.decide(run_id, "p1", approve=True).status_code == 200
    second = server.until_waiting(run_id, after=first[-1].id)
    (reviewed,) = [m.data for m in second if m.type == "plan_reviewed"]
    assert reviewed["approved"] and reviewed["by"] == "api"
    assert not (cli.workspace / "one.txt").exists()  # the plan approved no call: w1 waits in turn
    assert server.decide(run_id, "w1", approve=True).status_code == 200
    rest = list(server.events(run_id, after=second[-1].id))
    assert finished(rest[-1]) and (cli.workspace / "one.txt").read_text() == "one\n"


def test_plan_must_be_a_boolean(server: Server) -> None:
    answer = server.http.post("/v1/runs", json={"task": "t", "model": "test", "plan": "yes please"})
    assert answer.status_code in (400, 422)
