"""Two ``quorum serve`` processes on one PostgreSQL run log: a run started through one is followed
and approved through the other, and a call decided through both at once runs once.

(Runs execute in the server that started or continued them; Temporal is not used here.)
"""

from __future__ import annotations

import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Cli, isolated_env
from tests.e2e.serve_client import DEADLINE, Server, awaiting, finished, write_script
from tests.support.postgres import PostgresServer

pytest.importorskip("starlette")

WRITE = [
    {
        "text": "writing",
        "tool_calls": [{"name": "write_file", "arguments": {"path": "o.txt", "content": "o"}, "id": "w1"}],
    },
    {"text": "all done"},
]


@pytest.fixture
def two(tmp_path: Path, postgres_server: PostgresServer) -> Iterator[tuple[Cli, Server, Server]]:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = isolated_env(tmp_path)
    del env["QUORUM_DB"]
    cli = Cli(workspace, env)
    url = postgres_server.new_database()
    cli.write(
        "quorum.toml", f'[storage]\nbackend = "postgres"\nurl = "{url}"\n[serve]\ntoken = "shared-token-0123456789"\n'
    )
    first = Server(cli)
    second = Server(cli)
    try:
        yield cli, first, second
    finally:
        for server in (first, second):
            if server.proc.poll() is None:
                server.kill()


def test_a_run_started_on_one_server_is_followed_and_approved_on_the_other(two: tuple[Cli, Server, Server]) -> None:
    cli, first, second = two
    run_id = first.start("write o", write_script(cli, WRITE))
    on_first = first.events(run_id)
    head = []
    for message in on_first:
        head.append(message)
        if awaiting(message):
            break
    on_second = second.until_waiting(run_id)
    assert [m.id for m in on_second] == [m.id for m in head]
    assert [p["call_id"] for p in second.http.get(f"/v1/runs/{run_id}/pending").json()["items"]] == ["w1"]

    assert second.decide(run_id, "w1", approve=True).status_code == 200
    rest = list(on_first)  # the first server's stream follows what the second one runs
    assert finished(rest[-1]) and rest[-1].data["output"] == "all done"
    assert [m.id for m in head + rest] == [m.id for m in second.events(run_id)]
    assert (cli.workspace / "o.txt").read_text() == "o"


def test_one_call_decided_through_both_servers_at_once_runs_once(two: tuple[Cli, Server, Server]) -> None:
    cli, first, second = two
    run_id = first.start("write o", write_script(cli, WRITE))
    first.until_waiting(run_id)
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def decide(server: Server) -> None:
        with server.client(server.token) as client:
            barrier.wait(DEADLINE)
            body = {"call_id": "w1", "approve": True}
            statuses.append(client.post(f"/v1/runs/{run_id}/decisions", json=body).status_code)

    threads = [threading.Thread(target=decide, args=(server,)) for server in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE)
    assert sorted(statuses) == [200, 409]
    events = list(first.events(run_id))
    assert [m.data["call_id"] for m in events if m.type == "tool_result"] == ["w1"]
    assert finished(events[-1])


def test_a_nul_anywhere_a_client_can_put_one_is_never_a_500(two: tuple[Cli, Server, Server]) -> None:
    cli, first, _ = two  # PostgreSQL refuses a NUL in text: the server must not pass one on
    run_id = first.start("write o", write_script(cli, WRITE))
    first.until_waiting(run_id)
    model = write_script(cli, WRITE, "t.json")
    requests = {
        "run id": ("GET", "/v1/runs/a%00b", None),
        "run id events": ("GET", "/v1/runs/a%00b/events", None),
        "parent": ("POST", "/v1/runs", {"task": "hi", "model": model, "parent": "a\x00b"}),
        "task": ("POST", "/v1/runs", {"task": "a\x00b", "model": model}),
        "call id": ("POST", f"/v1/runs/{run_id}/decisions", {"call_id": "w\x001", "approve": True}),
        "reason": ("POST", f"/v1/runs/{run_id}/decisions", {"call_id": "w1", "approve": False, "reason": "\x00"}),
    }
    failed = {}
    for name, (method, path, body) in requests.items():
        with first.client(first.token) as client:  # one connection each: a 500 closes its connection
            answer = client.request(method, path, json=body)
        if answer.status_code >= 500:
            failed[name] = answer.text
    assert failed == {}
    assert [r["run_id"] for r in first.runs()] == [run_id]
