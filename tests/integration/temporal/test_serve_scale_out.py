"""Scale-out: two ``quorum serve`` processes on PostgreSQL and Temporal serve the same runs.

A run started through one server executes on a worker; it is followed and approved through the
other, and the first server's stream sees it to its end.
"""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server, awaiting, finished, write_script
from tests.integration.temporal.conftest import Worker
from tests.support.postgres import PostgresServer, start_server

pytest.importorskip("starlette")

WRITE = [
    {
        "text": "writing",
        "tool_calls": [{"name": "write_file", "arguments": {"path": "o.txt", "content": "o"}, "id": "w1"}],
    },
    {"text": "all done"},
]


@pytest.fixture(scope="module")
def postgres() -> Iterator[PostgresServer]:
    try:
        server = start_server()
    except FileNotFoundError as missing:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI must test scale-out on PostgreSQL: {missing}")
        pytest.skip(f"no PostgreSQL server here: {missing}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def shared(tcli: Cli, postgres: PostgresServer) -> Iterator[tuple[Cli, Server, Server]]:
    config = tcli.workspace / "quorum.toml"
    url = postgres.new_database()
    config.write_text(config.read_text() + f'\n[storage]\nbackend = "postgres"\nurl = "{url}"\n')
    del tcli.env["QUORUM_DB"]
    worker = Worker(tcli).start()
    first = Server(tcli)
    second = Server(tcli)
    try:
        yield tcli, first, second
    finally:
        for server in (first, second):
            if server.proc.poll() is None:
                server.kill()
        worker.stop()


def test_a_run_on_temporal_started_through_one_server_is_approved_through_another(
    shared: tuple[Cli, Server, Server],
) -> None:
    cli, first, second = shared
    run_id = first.start("write o", write_script(cli, WRITE))
    on_first = first.events(run_id)
    head = []
    for message in on_first:
        head.append(message)
        if awaiting(message):
            break
    assert second.http.get(f"/v1/runs/{run_id}").json()["engine"] == "temporal"
    assert [p["call_id"] for p in second.http.get(f"/v1/runs/{run_id}/pending").json()["items"]] == ["w1"]
    assert not (cli.workspace / "o.txt").exists()

    assert second.decide(run_id, "w1", approve=True).status_code == 200
    rest = list(on_first)
    assert finished(rest[-1]) and rest[-1].data["output"] == "all done"
    assert (cli.workspace / "o.txt").read_text() == "o"
    assert [m.id for m in head + rest] == [m.id for m in second.events(run_id)]


def test_a_run_on_temporal_is_not_cancelled_by_a_server(shared: tuple[Cli, Server, Server]) -> None:
    cli, first, second = shared
    run_id = first.start("write o", write_script(cli, WRITE))
    first.until_waiting(run_id)
    refused = second.http.post(f"/v1/runs/{run_id}/cancel")
    assert refused.status_code == 409 and "Temporal" in refused.json()["error"]["message"]
    assert first.decide(run_id, "w1", approve=False, reason="no").status_code == 200
    assert list(first.events(run_id))[-1].data["stop_reason"] == "end_turn"
