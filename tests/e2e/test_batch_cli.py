"""``quorum batch`` through the real CLI with the offline ``scripted:`` provider and a real MCP server.

Concurrency is proven with the probe server's ``barrier`` tool (it returns "passed" only once two
calls are inside it together), not timing; the upper bound is proven in
tests/unit/cli/test_batch_tasks.py. Resumability is checked against the run log the CLI wrote.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Cli, Result

PROBE = Path(__file__).resolve().parents[1] / "support" / "mcp_servers" / "probe_server.py"


def configure(cli: Cli, extra: str = "") -> None:
    cli.write(
        "quorum.toml",
        f"""
[tools]
risk = {{ "mcp__probe__barrier" = "low" }}

[mcp.servers.probe]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(PROBE))}]
{extra}
""",
    )


def barrier_script(key: str) -> str:
    return json.dumps(
        {
            "turns": [
                {"tool_calls": [{"name": "mcp__probe__barrier", "arguments": {"key": key, "parties": 2}}]},
                {"text": f"through {key}"},
            ]
        }
    )


def lines(result: Result) -> tuple[list[dict[str, Any]], dict[str, Any]]:
    objects = result.events()
    assert objects[-1]["type"] == "summary", result.stdout
    return objects[:-1], objects[-1]


def tool_outputs(cli: Cli, run_id: str) -> list[str]:
    shown = cli("logs", "show", run_id, "--json")
    assert shown.code == 0, shown.stderr
    return [e["output"] for e in shown.events() if e["type"] == "tool_result"]


def test_a_batch_runs_concurrently_reports_each_task_and_resumes(cli: Cli) -> None:
    configure(cli)
    cli.write("a.json", barrier_script("a"))
    cli.write("b.json", barrier_script("b"))
    tasks = [
        {"task": "first of a", "id": "a1", "model": "scripted:a.json"},
        {"task": "second of a", "id": "a2", "model": "scripted:a.json"},
        {"task": "first of b", "model": "scripted:b.json"},
        {"task": "second of b", "id": "b2", "model": "scripted:b.json"},
        {"task": "cannot start", "id": "bad", "model": "scripted:later.json"},
    ]
    cli.write("tasks.jsonl", "".join(json.dumps(t) + "\n" for t in tasks))

    first = cli("batch", "tasks.jsonl", "--concurrency", "2", "--json", timeout=180)
    assert first.code == 1, first.stderr  # one task failed
    results, summary = lines(first)
    by_id = {r["id"]: r for r in results}
    assert len(by_id) == 5 and all(not r["skipped"] for r in results)
    unnamed = next(i for i in by_id if i not in {"a1", "a2", "b2", "bad"})
    for task_id in ("a1", "a2", unnamed, "b2"):
        assert (by_id[task_id]["status"], by_id[task_id]["result"]) == ("end_turn", "done")
        key = "a" if task_id.startswith("a") else "b"
        assert by_id[task_id]["output"] == f"through {key}"
        # two tasks were inside the barrier together: the runs overlapped
        assert tool_outputs(cli, by_id[task_id]["run_id"]) == [f"barrier {key} passed by 2"]
    assert (by_id["bad"]["status"], by_id["bad"]["result"], by_id["bad"]["run_id"]) == ("error", "failed", None)
    assert "later.json" in by_id["bad"]["detail"]
    assert summary == {
        "type": "summary", "tasks": 5, "done": 4, "failed": 1, "stopped": 0, "waiting": 0, "skipped": 0,
        "exit_code": 1,
    }  # fmt: skip
    recorded = {json.loads(line)["run_id"] for line in cli("logs", "list", "--json").stdout.splitlines()}
    assert recorded == {by_id[i]["run_id"] for i in ("a1", "a2", unnamed, "b2")}

    # The same file again: the finished tasks are skipped with their recorded outcome, the failed one runs again.
    cli.write("later.json", json.dumps({"turns": [{"text": "fixed now"}]}))
    second = cli("batch", "tasks.jsonl", "--json", timeout=180)
    assert second.code == 0, second.stderr
    again, summary = lines(second)
    assert [r["id"] for r in again if r["skipped"]] == ["a1", "a2", unnamed, "b2"]
    assert all(by_id[r["id"]]["run_id"] == r["run_id"] for r in again if r["skipped"])
    retried = next(r for r in again if r["id"] == "bad")
    assert (retried["skipped"], retried["status"], retried["output"]) == (False, "end_turn", "fixed now")
    assert (summary["done"], summary["skipped"], summary["exit_code"]) == (5, 4, 0)

    third = cli("batch", "tasks.jsonl", timeout=180)  # the human output: nothing left to run
    assert third.code == 0, third.stderr
    assert third.stderr.count("already done") == 5
    assert "5 tasks: 5 done, 0 failed, 0 stopped, 0 waiting for approval" in third.stdout
    assert "a1" in third.stdout and retried["run_id"] in third.stdout


DEFERRED = json.dumps(
    {
        "conversation": "continue",
        "turns": [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x\n"}, "id": "w1"}]},
            {"text": "written"},
        ],
    }
)

LOOPING = json.dumps({"repeat_last": True, "turns": [{"tool_calls": [{"name": "list_dir", "arguments": {}}]}]})


def test_exit_codes_waiting_for_approval_and_stopped_early(cli: Cli) -> None:
    cli.write("quorum.toml", "[agent]\nmax_tool_turns = 2\n")
    cli.write("defer.json", DEFERRED)
    cli.write("loop.json", LOOPING)
    cli.write("waits.jsonl", json.dumps({"task": "write it", "id": "w", "model": "scripted:defer.json"}) + "\n")
    waiting = cli("batch", "waits.jsonl", "--json")
    assert waiting.code == 4, waiting.stderr  # nobody to ask in a batch: the call waits for a person
    (result,), _ = lines(waiting)
    assert (result["status"], result["result"]) == ("awaiting_approval", "waiting")
    assert not (cli.workspace / "out.txt").exists()

    still = cli("batch", "waits.jsonl", "--json")  # a waiting task is not started again
    assert still.code == 4 and lines(still)[0][0]["skipped"] is True
    assert lines(still)[0][0]["run_id"] == result["run_id"]
    approved = cli("approve", result["run_id"], "--by", "alice", "-q")
    assert approved.code == 0, approved.stderr
    done = cli("batch", "waits.jsonl", "--json")
    assert done.code == 0 and lines(done)[0][0]["status"] == "end_turn"
    assert (cli.workspace / "out.txt").read_text() == "x\n"
    (cli.workspace / "out.txt").unlink()  # a new file again: one that exists is written only once read

    cli.write(
        "mixed.jsonl",
        json.dumps({"task": "loops", "model": "scripted:loop.json"})
        + "\n"
        + json.dumps({"task": "write it", "model": "scripted:defer.json"})
        + "\n",
    )
    mixed = cli("batch", "mixed.jsonl", "--json")
    assert mixed.code == 3, mixed.stderr  # stopped early outranks waiting
    assert sorted(r["status"] for r in lines(mixed)[0]) == ["awaiting_approval", "max_turns"]


def test_usage_errors_exit_2_before_anything_runs(cli: Cli) -> None:
    cli.write("bad.jsonl", '{"task": "fine"}\n{"tsak": "typo"}\n')
    bad = cli("batch", "bad.jsonl")
    assert bad.code == 2 and "bad.jsonl:2: unknown key(s) tsak" in bad.stderr
    assert cli("logs", "list", "--json").stdout.strip() == ""
    missing = cli("batch", "nowhere.jsonl")
    assert missing.code == 2 and "nowhere.jsonl" in missing.stderr
    cli.write("ok.jsonl", '{"task": "fine", "model": "scripted:demo"}\n')
    no_log = cli("batch", "ok.jsonl", "--config", str(cli.write("off.toml", "[storage]\nenabled = false\n")))
    assert no_log.code == 2 and "run log" in no_log.stderr
