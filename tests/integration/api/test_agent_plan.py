"""Plan mode through the Python API: ``Agent.run(task, plan=True)``.

The agent is the offline ``scripted:`` provider, the reviewer panel the real OpenAI SDK against the
local wire server; the human step is the application's callback. Effects are checked on disk; a
deferred plan is approved later by the real ``quorum approve`` on the same run log.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from quorum import Agent, Decision, Review, ReviewRequest
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Turn

PLAN = {
    "summary": "Write the greeting",
    "steps": [{"description": "Write hello.txt", "files": ["hello.txt"]}],
}
REVISED = {
    "summary": "Write the greeting politely",
    "steps": [{"description": "Write hello.txt with a polite greeting", "files": ["hello.txt"]}],
}


def script(tmp_path: Path, turns: list[dict[str, Any]]) -> str:
    path = tmp_path / "agent.json"
    path.write_text(json.dumps({"conversation": "continue", "turns": turns}))
    return f"scripted:{path}"


def propose(plan: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "propose_plan", "arguments": plan, "id": call_id}]}


def write(content: str, call_id: str = "w1") -> dict[str, Any]:
    return {
        "tool_calls": [{"name": "write_file", "arguments": {"path": "hello.txt", "content": content}, "id": call_id}]
    }


async def test_the_human_callback_rejects_a_plan_approves_the_revision_and_sees_it_beside_later_calls(
    tmp_path: Path,
) -> None:
    target = tmp_path / "hello.txt"
    model = script(
        tmp_path,
        [
            {"tool_calls": [{"name": "run_command", "arguments": {"command": "echo hi > hello.txt"}, "id": "x0"}]},
            propose(PLAN, "p1"),
            propose(REVISED, "p2"),
            write("hello, please\n"),
            {"text": "Done."},
        ],
    )
    asked: list[ReviewRequest] = []

    def human(request: ReviewRequest) -> Decision:
        asked.append(request)
        if request.tool == "propose_plan":
            polite = "polite" in request.plan
            return Decision(approved=polite, reason="" if polite else "be polite")
        return Decision(approved=True)

    approve_all = [{"tool": "*", "decision": "allow", "match": {"command": "echo*"}}]
    review = Review(human=human, rules=approve_all)
    async with Agent(model, builtins="all", workspace=tmp_path, review=review) as agent:
        result = await agent.run("write a greeting", plan=True)
    assert result.stop_reason == "end_turn", result.detail
    assert target.read_text() == "hello, please\n"
    refused = next(e for e in result.events if e.type == "tool_result" and e.call_id == "x0")
    assert refused.is_rejected and "planning phase" in refused.output
    reviewed = [e for e in result.events if e.type == "plan_reviewed"]
    assert [(r.call_id, r.approved, r.reason) for r in reviewed] == [
        ("p1", False, "be polite"),
        ("p2", True, "approved by the user"),
    ]
    assert [r.tool for r in asked] == ["propose_plan", "propose_plan", "write_file"]
    assert asked[0].plan == "Write the greeting\n1. Write hello.txt\n   files: hello.txt"
    assert asked[2].plan.startswith("Write the greeting politely\n1. Write hello.txt with a polite greeting")


async def test_the_panel_votes_on_the_plan_and_a_later_call_reviewer_receives_the_plan(
    tmp_path: Path, openai_wire: ScriptedHttpServer
) -> None:
    model = script(tmp_path, [propose(PLAN, "p1"), write("hello\n"), {"text": "Done."}])
    providers = {"local": {"type": "openai", "base_url": f"{openai_wire.url}/v1", "api_key": "x", "max_retries": 0}}
    openai_wire.enqueue(
        Turn(calls=[Call("v1", "submit_verdict", {"verdict": "approve", "reason": "a plain write"})]),
        Turn(calls=[Call("v2", "submit_verdict", {"verdict": "approve", "reason": "step 1"})]),
    )
    review = Review(reviewers=["local:rev"], hil_mode="auto_approve")
    async with Agent(model, builtins="all", workspace=tmp_path, review=review, providers=providers) as agent:
        result = await agent.run("write a greeting", plan=True)
    assert result.stop_reason == "end_turn", result.detail
    assert (tmp_path / "hello.txt").read_text() == "hello\n"
    (reviewed,) = [e for e in result.events if e.type == "plan_reviewed"]
    assert reviewed.approved and [v.reason for v in reviewed.votes] == ["a plain write"]
    plan_prompt, call_prompt = (json.dumps(r.body["messages"]) for r in openai_wire.requests)
    assert "proposes this plan" in plan_prompt and "1. Write hello.txt" in plan_prompt
    assert "The approved plan of this run (does this call belong to it?)" in call_prompt
    assert "1. Write hello.txt" in call_prompt


async def test_a_deferred_plan_is_approved_later_with_quorum_approve(tmp_path: Path) -> None:
    model = script(tmp_path, [propose(PLAN, "p1"), write("hello\n"), {"text": "Done."}])
    log = tmp_path / "runs.db"
    review = Review(extra={"hil_mode": "defer"})
    async with Agent(model, builtins="all", workspace=tmp_path, review=review, run_log=log) as agent:
        result = await agent.run("write a greeting", plan=True)
    assert result.stop_reason == "awaiting_approval" and result.detail == "1 call(s) wait for a person: p1"
    assert not (tmp_path / "hello.txt").exists()

    env = {k: v for k, v in os.environ.items() if not k.startswith(("QUORUM_", "OPENAI_", "ANTHROPIC_"))}
    env.update(HOME=str(tmp_path / "home"), XDG_CONFIG_HOME=str(tmp_path / "config"), QUORUM_DB=str(log))

    def quorum(*args: str) -> subprocess.CompletedProcess[str]:
        command = [sys.executable, "-m", "quorum.cli.main", *args]
        return subprocess.run(command, cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60)

    approved = quorum("approve", result.run_id, "--json", "--by", "bob")
    assert approved.returncode == 4, approved.stderr  # the plan's write waits for a person in turn
    events = [json.loads(line) for line in approved.stdout.splitlines()]
    (reviewed,) = [e for e in events if e["type"] == "plan_reviewed"]
    assert (reviewed["approved"], reviewed["by"]) == (True, "bob")
    assert not (tmp_path / "hello.txt").exists()
    done = quorum("approve", result.run_id, "--by", "bob")
    assert done.returncode == 0, done.stderr
    assert (tmp_path / "hello.txt").read_text() == "hello\n"
