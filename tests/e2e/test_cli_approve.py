"""Approve later: ``run --defer`` stops with exit 4; ``pending``, ``approve`` and ``reject`` continue the run.

Effects are checked in the workspace: a deferred write happens only after ``approve``, and never twice.
"""

from __future__ import annotations

import json
import threading
from typing import Any

from tests.e2e.conftest import Cli, Result

SCRIPT = {
    "conversation": "continue",
    "turns": [
        {
            "text": "writing",
            "tool_calls": [
                {"name": "write_file", "arguments": {"path": "one.txt", "content": "one\n"}, "id": "w1"},
                {"name": "write_file", "arguments": {"path": "two.txt", "content": "two\n"}, "id": "w2"},
                {"name": "list_dir", "arguments": {}, "id": "l1"},
            ],
        },
        {"text": "all done"},
    ],
}


def deferred_run(cli: Cli, script: dict[str, Any] = SCRIPT) -> tuple[str, Result]:
    cli.write("s.json", json.dumps(script))
    result = cli("run", "--defer", "--model", "scripted:s.json", "--json", "write two files")
    assert result.code == 4, result.stderr
    return result.events()[0]["run_id"], result


def test_deferred_run_exits_4_with_the_pending_calls(cli: Cli) -> None:
    run_id, result = deferred_run(cli)
    events = result.events()
    requested = [e for e in events if e["type"] == "approval_requested"]
    assert [(e["call_id"], e["name"], e["risk"]) for e in requested] == [
        ("w1", "write_file", "high"),
        ("w2", "write_file", "high"),
    ]
    assert requested[0]["arguments"] == {"path": "one.txt", "content": "one\n"}
    finished = events[-1]
    assert finished["stop_reason"] == "awaiting_approval" and "w1, w2" in finished["detail"]
    # the low-risk call of the turn ran; the high-risk ones did not
    assert [e["call_id"] for e in events if e["type"] == "tool_result"] == ["l1"]
    assert not (cli.workspace / "one.txt").exists()

    human = cli("run", "--defer", "--model", "scripted:s.json", "again")
    assert human.code == 4
    assert "waiting for approval: 2 calls (w1, w2)" in human.stderr
    second_id = json.loads(cli("logs", "list", "--json").stdout.splitlines()[0])["run_id"]
    assert f"quorum approve {second_id}" in human.stderr

    listed = cli("pending", run_id, "--json")
    assert listed.code == 0, listed.stderr
    rows = [json.loads(line) for line in listed.stdout.splitlines()]
    assert [(r["run_id"], r["call_id"], r["name"], r["risk"]) for r in rows] == [
        (run_id, "w1", "write_file", "high"),
        (run_id, "w2", "write_file", "high"),
    ]
    assert "no reviewer models" in rows[0]["reason"] and rows[0]["votes"] == []
    everything = cli("pending")
    assert everything.code == 0 and run_id in everything.stdout and second_id in everything.stdout


def test_approve_runs_the_calls_once_and_the_run_finishes(cli: Cli) -> None:
    run_id, _ = deferred_run(cli)
    approved = cli("approve", run_id, "--json", "--by", "alice")
    assert approved.code == 0, approved.stderr
    events = approved.events()
    assert events[0]["type"] == "run_started" and events[0]["run_id"] == run_id and events[0]["resumed"] is True
    reviews = [e for e in events if e["type"] == "review"]
    assert [(r["call_id"], r["approved"], r["decided_by"], r["by"]) for r in reviews] == [
        ("w1", True, "human", "alice"),
        ("w2", True, "human", "alice"),
    ]
    assert events[-1]["stop_reason"] == "end_turn" and events[-1]["output"] == "all done"
    assert (cli.workspace / "one.txt").read_text() == "one\n"
    assert (cli.workspace / "two.txt").read_text() == "two\n"

    (cli.workspace / "one.txt").write_text("changed by hand\n")
    again = cli("approve", run_id, "w1")
    assert again.code == 2 and "no calls waiting for approval" in again.stderr
    assert (cli.workspace / "one.txt").read_text() == "changed by hand\n"  # never a second execution

    shown = cli("logs", "show", run_id, "--json")
    types = [json.loads(line).get("type") for line in shown.stdout.splitlines()[1:]]
    assert types.count("run_finished") == 2 and types.count("run_started") == 2  # one run, told in order
    assert cli("pending", run_id).stdout.startswith("nothing is waiting")


def test_reject_tells_the_model_the_reason(cli: Cli) -> None:
    run_id, _ = deferred_run(cli)
    rejected = cli("reject", run_id, "--reason", "use a scratch dir", "--json")
    assert rejected.code == 0, rejected.stderr
    results = {e["call_id"]: e for e in rejected.events() if e["type"] == "tool_result"}
    assert results["w1"]["is_rejected"] and "use a scratch dir" in results["w1"]["output"]
    assert not (cli.workspace / "one.txt").exists() and not (cli.workspace / "two.txt").exists()
    assert rejected.events()[-1]["output"] == "all done"  # the model answered after seeing the results


def test_reject_needs_a_reason(cli: Cli) -> None:
    run_id, _ = deferred_run(cli)
    result = cli("reject", run_id)
    assert result.code == 2 and "--reason" in result.stderr
    assert cli("pending", run_id, "--json").stdout.count("\n") == 2  # nothing was decided


def test_partial_approval_keeps_the_other_call_pending(cli: Cli) -> None:
    run_id, _ = deferred_run(cli)
    first = cli("approve", run_id, "w2", "--json")
    assert first.code == 4, first.stderr
    assert (cli.workspace / "two.txt").exists() and not (cli.workspace / "one.txt").exists()
    events = first.events()
    assert [e["call_id"] for e in events if e["type"] == "approval_requested"] == ["w1"]  # said again
    assert events[-1]["stop_reason"] == "awaiting_approval"
    assert [r["call_id"] for r in map(json.loads, cli("pending", run_id, "--json").stdout.splitlines())] == ["w1"]

    second = cli("reject", run_id, "w1", "--reason", "one file is enough", "--json")
    assert second.code == 0, second.stderr
    assert second.events()[-1]["output"] == "all done"
    assert not (cli.workspace / "one.txt").exists()
    assert (cli.workspace / "two.txt").read_text() == "two\n"


def test_concurrent_approvals_execute_once(cli: Cli) -> None:
    run_id, _ = deferred_run(cli)
    results: list[Result] = []
    start = threading.Barrier(2)

    def approve() -> None:
        start.wait()
        results.append(cli("approve", run_id, "w1", "w2", "--json"))

    threads = [threading.Thread(target=approve) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert sorted(r.code for r in results) == [0, 2], [r.stderr for r in results]
    executed = [e["call_id"] for r in results for e in r.events() if e["type"] == "tool_result" and not e["is_error"]]
    assert sorted(executed) == ["w1", "w2"]  # each approved call ran exactly once


def test_continued_on_another_provider(cli: Cli) -> None:
    run_id, _ = deferred_run(cli)
    cli.write("other.json", json.dumps({"turns": [{"text": "finished elsewhere"}]}))
    result = cli("approve", run_id, "--model", "scripted:other.json", "--json")
    assert result.code == 0, result.stderr
    events = result.events()
    assert events[0]["model"] == "scripted:other.json"
    assert events[-1]["output"] == "finished elsewhere"
    assert (cli.workspace / "one.txt").exists()
    for written in ("one.txt", "two.txt"):  # new files again: one that exists is written only once read
        (cli.workspace / written).unlink()

    test_provider = deferred_run(cli)[0]
    moved = cli("approve", test_provider, "-m", "test", "-q")
    assert moved.code == 0, moved.stderr


def test_approve_unknown_run_or_call_is_a_usage_error(cli: Cli) -> None:
    assert cli("approve", "nope").code == 2
    run_id, _ = deferred_run(cli)
    result = cli("approve", run_id, "zzz")
    assert result.code == 2 and "zzz is not pending" in result.stderr
    assert not (cli.workspace / "one.txt").exists()
