"""``quorum serve`` over real HTTP: runs, their event streams, approvals, cancel, a restart after SIGKILL.

Effects are checked in the workspace and the run log: an approved write happens once, a rejected
one never, and the model sees the reason.
"""

from __future__ import annotations

import threading
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import DEADLINE, Server, finished, write_script

pytest.importorskip("starlette")

WRITE = [
    {
        "text": "writing",
        "tool_calls": [{"name": "write_file", "arguments": {"path": "one.txt", "content": "one\n"}, "id": "w1"}],
    },
    {"text": "all done"},
]
SLOW = [
    {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch started && sleep 300"}, "id": "c1"}]},
    {"text": "slept"},
]


@pytest.fixture
def server(cli: Cli) -> Iterator[Server]:
    running = Server(cli)
    yield running
    if running.proc.poll() is None:
        running.kill()


def test_a_write_approved_through_the_api_happens_once_in_the_same_stream(cli: Cli, server: Server) -> None:
    run_id = server.start("write one file", write_script(cli, WRITE))
    stream = server.events(run_id)
    first = []
    for message in stream:
        first.append(message)
        if message.type == "run_finished":
            break
    assert first[-1].data["stop_reason"] == "awaiting_approval"
    assert [m.data["call_id"] for m in first if m.type == "approval_requested"] == ["w1"]
    pending = server.http.get(f"/v1/runs/{run_id}/pending").json()["items"]
    assert [(p["call_id"], p["name"], p["risk"], p["arguments"]["path"]) for p in pending] == [
        ("w1", "write_file", "high", "one.txt")
    ]
    assert "new file one.txt" in " ".join(pending[0]["view"])  # what the terminal shows a person
    assert first[0].type == "run_started" and first[0].id == 0 and first[0].data["run_id"] == run_id
    assert not (cli.workspace / "one.txt").exists()

    decided = server.decide(run_id, "w1", approve=True)
    assert decided.status_code == 200, decided.text
    rest = list(stream)  # the same stream goes on with the continued run, then ends
    assert rest[0].type == "run_started" and rest[0].data["resumed"] is True and rest[0].data["run_id"] == run_id
    assert finished(rest[-1]) and rest[-1].data["output"] == "all done"
    assert [m.id for m in first + rest] == sorted({m.id for m in first + rest})  # increasing, none twice
    assert (cli.workspace / "one.txt").read_text() == "one\n"

    again = server.decide(run_id, "w1", approve=True)
    assert again.status_code == 409 and again.json()["error"]["code"] == "conflict"
    shown = server.http.get(f"/v1/runs/{run_id}").json()
    assert shown["status"] == "end_turn" and shown["output"] == "all done" and "usage" in shown


def test_a_rejected_write_never_happens_and_the_model_gets_the_reason(cli: Cli, server: Server) -> None:
    run_id = server.start("write one file", write_script(cli, WRITE))
    server.until_waiting(run_id)
    refused = server.decide(run_id, "w1", approve=False)
    assert refused.status_code == 422  # a rejection needs the reason the model will see
    decided = server.decide(run_id, "w1", approve=False, reason="not in this folder")
    assert decided.status_code == 200, decided.text
    events = list(server.events(run_id))
    results = [m.data for m in events if m.type == "tool_result"]
    assert len(results) == 1 and results[0]["is_rejected"] is True
    assert "not in this folder" in results[0]["output"]
    assert finished(events[-1])
    assert not (cli.workspace / "one.txt").exists()


def test_two_clients_deciding_the_same_call_at_once_one_wins_and_it_runs_once(cli: Cli, server: Server) -> None:
    run_id = server.start("write one file", write_script(cli, WRITE))
    server.until_waiting(run_id)
    barrier = threading.Barrier(2)
    statuses: list[int] = []

    def decide() -> None:
        with server.client(server.token) as client:
            body = {"call_id": "w1", "approve": True}
            barrier.wait(DEADLINE)
            statuses.append(client.post(f"/v1/runs/{run_id}/decisions", json=body).status_code)

    threads = [threading.Thread(target=decide) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(DEADLINE)
    assert sorted(statuses) == [200, 409]
    events = list(server.events(run_id))
    assert [m.data["call_id"] for m in events if m.type == "tool_result"] == ["w1"]  # executed once
    assert finished(events[-1])


def test_a_hundred_clients_follow_one_run_and_see_the_same_events(cli: Cli, server: Server) -> None:
    run_id = server.start("write one file", write_script(cli, WRITE))
    server.until_waiting(run_id)
    followers = 100
    connected = threading.Barrier(followers + 1)
    seen: list[list[int]] = []

    def follow() -> None:
        with server.client(server.token) as client:
            stream = server.events(run_id, client=client)
            ids = []
            for message in stream:
                ids.append(message.id)
                if message.type == "run_finished":
                    break
            connected.wait(DEADLINE)  # every follower is at the pause before anyone decides
            ids.extend(m.id for m in stream)
            seen.append(ids)

    threads = [threading.Thread(target=follow) for _ in range(followers)]
    for thread in threads:
        thread.start()
    connected.wait(DEADLINE)
    assert server.decide(run_id, "w1", approve=True).status_code == 200
    for thread in threads:
        thread.join(DEADLINE)
    whole = [m.id for m in server.events(run_id)]
    assert len(seen) == followers and all(ids == whole for ids in seen)


def test_a_stream_resumed_with_last_event_id_loses_nothing_and_repeats_nothing(cli: Cli, server: Server) -> None:
    run_id = server.start("write one file", write_script(cli, WRITE))
    before = server.until_waiting(run_id)
    assert server.decide(run_id, "w1", approve=True).status_code == 200
    after = list(server.events(run_id, after=before[-1].id))
    whole = list(server.events(run_id))
    assert [m.id for m in before + after] == [m.id for m in whole]
    assert [m.data for m in before + after] == [m.data for m in whole]
    middle = whole[len(whole) // 2].id
    assert [m.id for m in server.events(run_id, after=middle)] == [m.id for m in whole if m.id > middle]


def test_parent_continues_a_conversation(cli: Cli, server: Server) -> None:
    model = write_script(cli, [{"text": "first answer"}, {"text": "second answer"}])
    first = server.start("first", model)
    assert list(server.events(first))[-1].data["output"] == "first answer"
    second = server.start("second", model, parent=first)
    assert list(server.events(second))[-1].data["output"] == "second answer"
    assert server.http.get(f"/v1/runs/{second}").json()["parent_run_id"] == first
    missing = server.http.post("/v1/runs", json={"task": "x", "model": model, "parent": "nope"})
    assert missing.status_code == 404


def test_cancel_a_run_waiting_for_approval_and_one_in_flight(cli: Cli, server: Server) -> None:
    waiting = server.start("write one file", write_script(cli, WRITE, "w.json"))
    server.until_waiting(waiting)
    assert server.http.post(f"/v1/runs/{waiting}/cancel").status_code == 202
    events = list(server.events(waiting))
    assert events[-1].data["stop_reason"] == "cancelled"
    assert server.http.get(f"/v1/runs/{waiting}/pending").json()["items"] == []  # its call was answered
    assert not (cli.workspace / "one.txt").exists()

    slow = server.start("sleep", write_script(cli, SLOW))
    server.until_waiting(slow)
    assert server.decide(slow, "c1", approve=True).status_code == 200  # the command starts
    assert server.http.post(f"/v1/runs/{slow}/cancel").status_code == 202
    assert list(server.events(slow))[-1].data["stop_reason"] == "cancelled"
    assert server.http.get(f"/v1/runs/{slow}").json()["status"] == "cancelled"
    assert server.http.post(f"/v1/runs/{slow}/cancel").status_code == 409  # over


def test_sigterm_cancels_the_runs_in_flight_and_records_them(cli: Cli, server: Server) -> None:
    slow = server.start("sleep", write_script(cli, SLOW))
    server.until_waiting(slow)
    assert server.decide(slow, "c1", approve=True).status_code == 200
    assert server.stop() == 0
    again = Server(cli)
    try:
        assert next(r for r in again.runs() if r["run_id"] == slow)["status"] == "cancelled"
    finally:
        again.kill()


def test_a_server_killed_mid_run_keeps_the_run_which_a_new_server_continues(cli: Cli, server: Server) -> None:
    model = write_script(cli, [*SLOW, {"text": "continued"}])
    slow = server.start("sleep", model)
    paused = server.until_waiting(slow)
    assert server.decide(slow, "c1", approve=True).status_code == 200
    list(server.events(slow, after=paused[-1].id, until=lambda m: m.type == "review"))  # the call was approved
    server.kill()  # SIGKILL mid-run: the approved command runs (or is about to)
    again = Server(cli)
    try:
        recorded = next(r for r in again.runs() if r["run_id"] == slow)
        assert recorded["task"] == "sleep"
        assert again.http.get(f"/v1/runs/{slow}").json()["status"] == "interrupted"
        events = list(again.events(slow))  # the log holds the run; its stream ends (no process runs it)
        assert events[0].type == "run_started" and events[0].id == 0
        assert [m.id for m in events] == sorted({m.id for m in events})
        assert [m.data["call_id"] for m in events if m.type == "review"] == ["c1"]
        follow_up = again.start("go on", model, parent=slow)
        assert list(again.events(follow_up))[-1].data["stop_reason"] == "end_turn"
    finally:
        again.kill()


def test_quorum_approve_in_a_terminal_decides_a_served_run_and_its_stream_follows(cli: Cli, server: Server) -> None:
    run_id = server.start("write one file", write_script(cli, WRITE))
    stream = server.events(run_id)
    for message in stream:
        if message.type == "run_finished":
            break
    approved = cli("approve", run_id, "w1", "--json")
    assert approved.code == 0, approved.stderr
    rest = list(stream)  # events another process wrote reach the open stream
    assert finished(rest[-1]) and rest[-1].data["output"] == "all done"
    assert (cli.workspace / "one.txt").read_text() == "one\n"
    assert server.decide(run_id, "w1", approve=True).status_code == 409


def test_a_call_nobody_decides_within_the_approval_timeout_is_rejected_and_the_run_goes_on(cli: Cli) -> None:
    config = cli.workspace / "quorum.toml"
    config.write_text((config.read_text() if config.exists() else "") + "\n[review]\napproval_timeout = 1\n")
    server = Server(cli)
    try:
        run_id = server.start("write one file", write_script(cli, WRITE))
        events = list(server.events(run_id))  # nobody decides: the stream goes on to the run's end
        assert [m.data["stop_reason"] for m in events if m.type == "run_finished"] == ["awaiting_approval", "end_turn"]
        results = [m.data for m in events if m.type == "tool_result"]
        assert len(results) == 1 and results[0]["is_rejected"] is True
        assert "no decision within [review] approval_timeout" in results[0]["output"]
        assert not (cli.workspace / "one.txt").exists()
        assert server.decide(run_id, "w1", approve=True).status_code == 409  # too late
    finally:
        server.kill()
