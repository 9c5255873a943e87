"""Runs on the Temporal engine through the CLI: same events as local, --detach, deferral and approval."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from tests.e2e.conftest import Cli
from tests.integration.temporal.conftest import DevServer, Worker, save_history, workflow_result

WRITE = {
    "conversation": "continue",
    "turns": [
        {
            "text": "writing",
            "tool_calls": [
                {"name": "write_file", "arguments": {"path": "one.txt", "content": "one\n"}, "id": "w1"},
                {"name": "read_file", "arguments": {"path": "seed.txt"}, "id": "r1"},
            ],
        },
        {"text": "all done"},
    ],
}

VOLATILE = {"run_id", "duration_ms", "latency_ms"}
LOCAL_ONLY = {"checkpoint"}
"""Events only a local run emits: on Temporal the worker records checkpoints without an event (docs/undo.md)."""


def _comparable(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The events without timings and ids, a turn's streamed text joined (Temporal sends it whole)."""
    kept: list[dict[str, Any]] = []
    for event in events:
        if event["type"] in LOCAL_ONLY:
            continue
        event = {k: v for k, v in event.items() if k not in VOLATILE}
        if event["type"] == "text" and kept and kept[-1]["type"] == "text":
            kept[-1] = {"type": "text", "text": kept[-1]["text"] + event["text"]}
        else:
            kept.append(event)
    return kept


def _prepare(cli: Cli) -> None:
    cli.write("s.json", json.dumps(WRITE))
    cli.write("seed.txt", "seed\n")


def test_a_scripted_run_gives_the_same_events_as_local(tcli: Cli, worker: Worker, temporal_server: DevServer) -> None:
    _prepare(tcli)
    on_temporal = tcli("run", "--yes", "--model", "scripted:s.json", "--json", "write one file")
    assert on_temporal.code == 0, on_temporal.stderr
    (tcli.workspace / "one.txt").unlink()
    local = tcli("run", "--engine", "local", "--yes", "--model", "scripted:s.json", "--json", "write one file")
    assert local.code == 0, local.stderr
    assert _comparable(on_temporal.events()) == _comparable(local.events())
    assert [e["created"] for e in local.events() if e["type"] == "checkpoint"] == [["one.txt"]]
    assert on_temporal.events()[-1]["output"] == "all done"
    shown = tcli("logs", "show", on_temporal.events()[0]["run_id"], "--json")
    recorded = [json.loads(line) for line in shown.stdout.splitlines()[1:]]
    assert [e["type"] for e in recorded] == [e["type"] for e in on_temporal.events()]
    run_id = on_temporal.events()[0]["run_id"]
    assert workflow_result(temporal_server, run_id).stop_reason == "end_turn"
    save_history(temporal_server, run_id, "same_events_as_local")
    undone = tcli("undo", run_id, "--yes")  # the worker recorded the Temporal run's checkpoints
    assert undone.code == 0, undone.stderr
    assert not (tcli.workspace / "one.txt").exists()


def test_detach_prints_the_run_id_and_the_run_finishes_in_the_log(
    tcli: Cli, worker: Worker, temporal_server: DevServer
) -> None:
    _prepare(tcli)
    detached = tcli("run", "--detach", "--yes", "--model", "scripted:s.json", "write one file")
    assert detached.code == 0, detached.stderr
    run_id = detached.stdout.strip()
    assert len(run_id) == 16

    async def outcome() -> Any:
        from temporalio.client import Client
        from temporalio.contrib.pydantic import pydantic_data_converter

        client = await Client.connect(temporal_server.address, data_converter=pydantic_data_converter)
        return await client.get_workflow_handle(run_id).result()

    result = asyncio.run(asyncio.wait_for(outcome(), 60))
    assert result["stop_reason"] == "end_turn" if isinstance(result, dict) else result.stop_reason == "end_turn"
    shown = tcli("logs", "show", run_id)
    assert shown.code == 0 and "all done" in shown.stdout
    assert (tcli.workspace / "one.txt").read_text() == "one\n"


def test_a_deferred_call_runs_once_after_approve(tcli: Cli, worker: Worker) -> None:
    _prepare(tcli)
    deferred = tcli("run", "--defer", "--model", "scripted:s.json", "--json", "write one file")
    assert deferred.code == 4, deferred.stderr
    run_id = deferred.events()[0]["run_id"]
    assert deferred.events()[-1]["stop_reason"] == "awaiting_approval"
    assert not (tcli.workspace / "one.txt").exists()

    listed = tcli("pending", run_id, "--json")
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [(r["call_id"], r["name"], r["risk"]) for r in rows] == [("w1", "write_file", "high")]

    approved = tcli("approve", run_id, "--by", "alice", "--json")
    assert approved.code == 0, approved.stderr
    events = approved.events()
    reviews = [e for e in events if e["type"] == "review"]
    assert [(r["call_id"], r["approved"], r["by"]) for r in reviews] == [("w1", True, "alice")]
    assert events[-1]["stop_reason"] == "end_turn" and events[-1]["output"] == "all done"
    assert (tcli.workspace / "one.txt").read_text() == "one\n"

    (tcli.workspace / "one.txt").write_text("changed by hand\n")
    again = tcli("approve", run_id, "w1")
    assert again.code == 2, again.stderr
    assert (tcli.workspace / "one.txt").read_text() == "changed by hand\n"  # never a second execution
    assert tcli("pending", run_id).stdout.startswith("nothing is waiting")


def test_reasoning_gives_the_same_events_as_local_and_is_not_the_answer(tcli: Cli, worker: Worker) -> None:
    script = {"turns": [{"reasoning": "Nothing to change.", "text": "all done"}], "conversation": "continue"}
    tcli.write("r.json", json.dumps(script))
    on_temporal = tcli("run", "--reasoning", "high", "--model", "scripted:r.json", "--json", "think")
    assert on_temporal.code == 0, on_temporal.stderr
    local = tcli("run", "--engine", "local", "--reasoning", "high", "--model", "scripted:r.json", "--json", "think")
    assert _comparable(on_temporal.events()) == _comparable(local.events())
    reasoning = [e for e in on_temporal.events() if e["type"] == "reasoning"]
    assert [e["text"] for e in reasoning] == ["Nothing to change."]
    assert on_temporal.events()[-1]["output"] == "all done"
