"""Plan mode through the real CLI: ``quorum run --plan``, the plan's review, ``quorum approve`` of a deferred plan.

The agent is a ``scripted:`` model; the reviewer panel is the real OpenAI SDK against the local
wire server, so the prompt each reviewer received is read from the requests it got. Effects are
checked on disk.
"""

from __future__ import annotations

import json
import os
from typing import Any

import pytest

from tests.e2e.conftest import Cli, Result
from tests.support.http_server import ScriptedHttpServer
from tests.support.plans import PLAN, REVISED
from tests.support.script import Call, Turn

ALLOW_EVERYTHING = '[[review.rules]]\ndecision = "allow"\ntool = "*"\n'


def propose(plan: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"text": "My plan.", "tool_calls": [{"name": "propose_plan", "arguments": plan, "id": call_id}]}


def read() -> dict[str, Any]:
    """Reading hello.txt: an existing file is written only once the run has read it."""
    return {"tool_calls": [{"name": "read_file", "arguments": {"path": "hello.txt"}, "id": "r1"}]}


def write(content: str, call_id: str = "w1") -> dict[str, Any]:
    return {
        "tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": content}, "id": call_id}]
    }


def scripted(cli: Cli, turns: list[dict[str, Any]]) -> str:
    cli.write("agent.json", json.dumps({"conversation": "continue", "turns": turns}))
    cli.write("hello.txt", "hello wrold\n")
    return "scripted:agent.json"


def of(result: Result, kind: str) -> list[dict[str, Any]]:
    return [e for e in result.events() if e["type"] == kind]


def test_high_risk_calls_while_planning_change_nothing_even_with_yes_and_an_allow_rule(cli: Cli) -> None:
    model = scripted(
        cli,
        [
            {
                "tool_calls": [
                    {"name": "write_file", "arguments": {"path": "hello.txt", "content": "pwned"}, "id": "w0"},
                    {"name": "edit_file", "arguments": {"path": "hello.txt", "old_text": "hello", "new_text": "x"}},
                    {"name": "run_command", "arguments": {"command": "rm -f hello.txt"}, "id": "x0"},
                    {"name": "run_command", "arguments": {"command": "echo pwned > hello.txt"}, "id": "x1"},
                    {"name": "read_file", "arguments": {"path": "hello.txt"}, "id": "r0"},
                ]
            },
            propose(PLAN, "p1"),
            {"text": "Planned only."},
        ],
    )
    cli.write("quorum.toml", ALLOW_EVERYTHING)
    result = cli("run", "--plan", "--yes", "--json", "--model", model, "fix the typo")
    assert result.code == 0, result.stderr
    assert (cli.workspace / "hello.txt").read_text() == "hello wrold\n"
    results = {e["call_id"]: e for e in of(result, "tool_result")}
    assert "unknown tool 'write_file'" in results["w0"]["output"]  # not offered while planning
    for refused in ("x0", "x1"):
        assert results[refused]["is_rejected"] and "planning phase" in results[refused]["output"]
    assert results["r0"]["output"] == "hello wrold\n"
    (proposed,) = of(result, "plan_proposed")
    assert proposed["plan"]["steps"][0]["files"] == ["hello.txt"]
    (reviewed,) = of(result, "plan_reviewed")
    assert reviewed["approved"] and reviewed["decided_by"] == "auto"  # --yes at the human step, not the rule


def test_a_policy_rule_cannot_approve_a_plan(cli: Cli) -> None:
    model = scripted(cli, [propose(PLAN, "p1"), {"text": "unreachable"}])
    cli.write("quorum.toml", ALLOW_EVERYTHING)
    result = cli("run", "--plan", "--defer", "--json", "--model", model, "fix the typo")
    assert result.code == 4, result.stderr
    (requested,) = of(result, "approval_requested")
    assert (requested["call_id"], requested["name"]) == ("p1", "propose_plan")
    assert of(result, "plan_reviewed") == []


def test_the_panel_votes_on_the_plan_and_reviewers_of_later_calls_see_the_approved_plan(
    cli: Cli, openai_wire: ScriptedHttpServer
) -> None:
    model = scripted(
        cli, [propose(PLAN, "p1"), propose(REVISED, "p2"), read(), write("hello world\n"), {"text": "Done."}]
    )
    cli.write(
        "quorum.toml",
        f'[providers.local]\ntype = "openai"\nbase_url = "{openai_wire.url}/v1"\n'
        '\n[review]\nreviewers = ["local:rev"]\n',
    )

    def verdict(word: str, reason: str) -> Turn:
        return Turn(calls=[Call("v1", "submit_verdict", {"verdict": word, "reason": reason})])

    openai_wire.enqueue(
        verdict("reject", "keep a backup of hello.txt first"),
        verdict("approve", "backup then fix: fine"),
        verdict("approve", "step 2 of the plan"),
    )
    result = cli("run", "--plan", "--yes", "--json", "--model", model, "fix the typo", OPENAI_API_KEY="sk-test")
    assert result.code == 0, result.stderr
    assert (cli.workspace / "hello.txt").read_text() == "hello world\n"
    reviewed = of(result, "plan_reviewed")
    assert [(r["call_id"], r["approved"]) for r in reviewed] == [("p1", False), ("p2", True)]
    assert reviewed[0]["decided_by"] == "quorum"
    assert [(v["verdict"], v["reason"]) for v in reviewed[0]["votes"]] == [
        ("reject", "keep a backup of hello.txt first")
    ]
    assert [v["verdict"] for v in reviewed[1]["votes"]] == ["approve"]  # the panel's; --yes casts no vote
    rejection = next(e for e in of(result, "tool_result") if e["call_id"] == "p1")
    assert rejection["is_rejected"] and "keep a backup of hello.txt first" in rejection["output"]

    prompts = [json.dumps(request.body["messages"]) for request in openai_wire.requests]
    assert len(prompts) == 3
    assert "proposes this plan" in prompts[0] and "1. Rewrite hello.txt with the typo fixed" in prompts[0]
    assert "fix the typo" in prompts[0]  # the task
    assert "The approved plan of this run (does this call belong to it?)" in prompts[2]
    assert "1. Copy hello.txt to hello.bak" in prompts[2] and "files: hello.txt" in prompts[2]
    assert "The approved plan" not in prompts[0] and "The approved plan" not in prompts[1]


def test_a_deferred_plan_approved_later_with_quorum_approve_is_carried_out(cli: Cli) -> None:
    model = scripted(cli, [propose(PLAN, "p1"), read(), write("hello world\n"), {"text": "Done."}])
    first = cli("run", "--plan", "--defer", "--json", "--model", model, "fix the typo")
    assert first.code == 4, first.stderr
    run_id = first.events()[0]["run_id"]
    assert of(first, "plan_proposed")[0]["call_id"] == "p1"
    assert first.events()[-1]["detail"] == "1 call(s) wait for a person: p1"
    pending = cli("pending", run_id, "--json")
    assert [json.loads(line)["name"] for line in pending.stdout.splitlines()] == ["propose_plan"]

    approved = cli("approve", run_id, "--json", "--by", "alice")
    assert approved.code == 4, approved.stderr  # the plan's write waits for a person too
    (reviewed,) = of(approved, "plan_reviewed")
    assert (reviewed["approved"], reviewed["by"], reviewed["decided_by"]) == (True, "alice", "human")
    assert (cli.workspace / "hello.txt").read_text() == "hello wrold\n"  # approving the plan approved no call
    assert [e["call_id"] for e in of(approved, "approval_requested")] == ["w1"]

    done = cli("approve", run_id, "--json", "--by", "alice")
    assert done.code == 0, done.stderr
    assert (cli.workspace / "hello.txt").read_text() == "hello world\n"

    shown = cli("logs", "show", run_id)
    assert shown.code == 0, shown.stderr
    assert "plan proposed (p1, proposal 1):" in shown.stdout
    assert "1. Rewrite hello.txt with the typo fixed" in shown.stdout
    assert "plan p1: approved by human (alice)" in shown.stdout


def test_a_deferred_plan_rejected_with_a_reason_is_revised(cli: Cli) -> None:
    model = scripted(cli, [propose(PLAN, "p1"), propose(REVISED, "p2"), {"text": "Stopped."}])
    first = cli("run", "--plan", "--defer", "--json", "--model", model, "fix the typo")
    run_id = first.events()[0]["run_id"]
    rejected = cli("reject", run_id, "--reason", "keep a backup", "--json")
    assert rejected.code == 4, rejected.stderr  # the revision waits for a person
    (reviewed,) = of(rejected, "plan_reviewed")
    assert (reviewed["approved"], reviewed["reason"]) == (False, "keep a backup")
    assert of(rejected, "plan_proposed")[0]["plan"]["summary"] == "Fix the typo, keeping a backup"
    assert [e["call_id"] for e in of(rejected, "approval_requested")] == ["p2"]


def test_the_human_output_prints_the_plan_as_a_numbered_list(cli: Cli) -> None:
    model = scripted(cli, [propose(PLAN, "p1"), {"text": "Planned."}])
    result = cli("run", "--plan", "--yes", "--model", model, "fix the typo")
    assert result.code == 0, result.stderr
    assert "plan: Fix the typo in hello.txt\n  1. Rewrite hello.txt with the typo fixed\n" in result.stderr
    assert "     files: hello.txt\n  2. Show the result\n     command: cat hello.txt" in result.stderr
    assert "✓ plan approved automatically: plan review: no reviewer models are configured" in result.stderr


def test_no_plan_within_max_plan_turns_stops_with_exit_3(cli: Cli) -> None:
    model = scripted(cli, [{"text": "Hmm."}, {"text": "Still thinking."}])
    cli.write("quorum.toml", "[agent]\nmax_plan_turns = 2\n")
    result = cli("run", "--plan", "--model", model, "fix the typo")
    assert result.code == 3, result.stderr
    assert "stopped: no plan approved in 2 planning turns" in result.stderr


def test_agent_plan_always_in_the_config_plans_every_run(cli: Cli) -> None:
    model = scripted(cli, [propose(PLAN, "p1"), {"text": "Planned."}])
    cli.write("quorum.toml", '[agent]\nplan = "always"\n')
    result = cli("run", "--yes", "--json", "--model", model, "fix the typo")
    assert result.code == 0, result.stderr
    assert len(of(result, "plan_reviewed")) == 1


def test_chat_plan_runs_the_next_message_in_plan_mode_only(cli: Cli) -> None:
    model = scripted(cli, [propose(PLAN, "p1"), read(), write("hello world\n"), {"text": "Fixed."}, {"text": "Plain."}])
    cli.write("quorum.toml", '[review]\nhil_mode = "auto_approve"\n')
    result = cli("chat", "--model", model, input="/plan\nfix the typo\nand now?\n/exit\n")
    assert result.code == 0, result.stderr
    assert "plan mode for the next message" in result.stdout
    headings = [line for line in result.stderr.splitlines() if line.startswith("plan: ")]
    assert headings == ["plan: Fix the typo in hello.txt"]  # the second message did not plan
    assert (cli.workspace / "hello.txt").read_text() == "hello world\n"
    assert "Plain." in result.stdout


def test_plan_mode_is_refused_on_the_temporal_engine_before_anything_runs(cli: Cli) -> None:
    try:
        import temporalio  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("the temporal extra is missing (CI must install it: see .ci/run)")
        pytest.skip("the temporal extra is not installed")
    model = scripted(cli, [propose(PLAN, "p1")])
    result = cli("run", "--plan", "--engine", "temporal", "--model", model, "fix the typo")
    assert result.code == 2, result.stderr
    assert "plan mode (--plan, [agent] plan) runs on the local engine only, not on Temporal" in result.stderr
