"""Scale-out: two ``quorum serve`` processes on PostgreSQL and Temporal serve the same runs.

A run started through one server executes on a worker; it is followed and approved through the
other, and the first server's stream sees it to its end.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import DEADLINE, Server, awaiting, finished, write_script
from tests.integration.temporal.conftest import Worker
from tests.support.postgres import PostgresServer, start_server
from tests.support.sandbox import processes_running

pytest.importorskip("starlette")

WRITE = [
    {
        "text": "writing",
        "tool_calls": [{"name": "write_file", "arguments": {"path": "o.txt", "content": "o"}, "id": "w1"}],
    },
    {"text": "all done"},
]
SLOW = [
    {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch started && sleep 3017"}, "id": "c1"}]},
    {"text": "slept"},
]


def eventually(condition: Callable[[], bool], deadline: float = DEADLINE) -> bool:
    """Whether ``condition`` holds within ``deadline`` seconds (a process or a file another process makes)."""
    end = time.monotonic() + deadline
    while not condition():
        if time.monotonic() > end:
            return False
        time.sleep(0.1)
    return True


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


def test_two_servers_deciding_the_same_call_at_once_on_temporal_one_wins_and_it_runs_once(
    shared: tuple[Cli, Server, Server],
) -> None:
    cli, first, second = shared
    run_id = first.start("write o", write_script(cli, WRITE))
    first.until_waiting(run_id)
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def decide(server: Server) -> None:
        with server.client(server.token) as client:
            barrier.wait(DEADLINE)
            answer = client.post(f"/v1/runs/{run_id}/decisions", json={"call_id": "w1", "approve": True})
            statuses.append(answer.status_code)

    threads = [threading.Thread(target=decide, args=(server,)) for server in (first, second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE)
    assert sorted(statuses) == [200, 409]
    events = list(second.events(run_id))
    assert [m.data["call_id"] for m in events if m.type == "tool_result"] == ["w1"]  # executed once
    assert finished(events[-1]) and events[-1].data["output"] == "all done"
    assert (cli.workspace / "o.txt").read_text() == "o"


def test_a_run_on_temporal_waiting_for_approval_is_cancelled_through_another_server(
    shared: tuple[Cli, Server, Server],
) -> None:
    cli, first, second = shared
    run_id = first.start("write o", write_script(cli, WRITE))
    first.until_waiting(run_id)
    assert second.http.post(f"/v1/runs/{run_id}/cancel").status_code == 202
    events = list(first.events(run_id))
    assert events[-1].data["stop_reason"] == "cancelled"
    assert [m.data["call_id"] for m in events if m.type == "tool_result"] == ["w1"]  # its call was answered
    assert second.http.get(f"/v1/runs/{run_id}/pending").json()["items"] == []
    assert second.http.get(f"/v1/runs/{run_id}").json()["status"] == "cancelled"
    assert not (cli.workspace / "o.txt").exists()
    assert second.http.post(f"/v1/runs/{run_id}/cancel").status_code == 409  # over


def test_a_run_on_temporal_in_flight_is_cancelled_and_its_command_stopped(shared: tuple[Cli, Server, Server]) -> None:
    cli, first, second = shared
    run_id = first.start("sleep", write_script(cli, SLOW))
    first.until_waiting(run_id)
    assert second.decide(run_id, "c1", approve=True).status_code == 200  # the command starts on the worker
    started = cli.workspace / "started"
    list(first.events(run_id, until=lambda m: m.type == "review"))
    assert eventually(started.exists), "the approved command did not start"
    assert second.http.post(f"/v1/runs/{run_id}/cancel").status_code == 202
    events = list(first.events(run_id))
    assert events[-1].data["stop_reason"] == "cancelled"
    assert [m.data["call_id"] for m in events if m.type == "tool_result"] == ["c1"]
    assert eventually(lambda: not processes_running("sleep 3017")), "the cancelled command still runs"
