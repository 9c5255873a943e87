"""Plan mode in the editor: the ``plan`` session mode and ``/plan``, the plan asked through
``session/request_permission``, and ``plan`` session updates.

Effects are checked on disk (nothing a planning-phase call asked for exists; the approved plan's
write lands after its own question), and the reason of a rejected plan on the request the model
received next (the agent model is the real OpenAI SDK against the local wire server).
"""

from __future__ import annotations

import json
from typing import Any

from tests.e2e.acp_client import RecordingClient, agent, prompt, within, write_script
from tests.e2e.conftest import Cli
from tests.support.http_server import ScriptedHttpServer
from tests.support.plans import PLAN, REVISED
from tests.support.script import Call, Turn


def call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "arguments": arguments, "id": call_id}


def plans(client: RecordingClient) -> list[list[tuple[str, str]]]:
    """Each ``plan`` update received: its entries as (content, status)."""
    return [[(e.content, e.status) for e in u.entries] for u in client.of("plan")]


def result_of(client: RecordingClient, call_id: str) -> Any:
    updates = client.of("tool_call_update")
    return next(u for u in updates if u.tool_call_id == call_id and u.status in ("completed", "failed"))


def said(update: Any) -> str:
    return "\n".join(item.content.text for item in update.content if item.type == "content")


async def test_plan_mode_refuses_changes_while_planning_asks_the_plan_then_carries_it_out(cli: Cli) -> None:
    hello = cli.write("hello.txt", "hello wrold\n")
    model = write_script(
        cli,
        [
            {
                "tool_calls": [
                    call("write_file", {"path": "pwned.txt", "content": "x"}, "w0"),
                    call("run_command", {"command": "echo pwned > pwned2.txt"}, "x1"),
                    call("read_file", {"path": "hello.txt"}, "r0"),
                ]
            },
            {"text": "My plan.", "tool_calls": [call("propose_plan", PLAN, "p1")]},
            {"tool_calls": [call("write_file", {"path": "hello.txt", "content": "hello world\n"}, "w1")]},
            {"text": "Done."},
        ],
    )
    client = RecordingClient(answers=["allow_once", "allow_once"])
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert "plan" in [m.id for m in session.modes.available_modes]
        [announced] = await client.wait_for("available_commands_update")
        assert "plan" in {c.name for c in announced.available_commands}
        await within(conn.set_session_mode(session_id=session.session_id, mode_id="plan"))
        assert await prompt(conn, session.session_id, "fix the typo") == "end_turn"

    assert not (cli.workspace / "pwned.txt").exists() and not (cli.workspace / "pwned2.txt").exists()
    assert "unknown tool 'write_file'" in said(result_of(client, "w0"))  # not offered while planning
    refused = result_of(client, "x1")
    assert refused.status == "failed" and "only low-risk calls run in the planning phase" in said(refused)
    assert result_of(client, "r0").status == "completed"

    assert [p[0].tool_call_id for p in client.permissions] == ["p1", "w1"]  # the high-risk call: never asked
    plan_call, options = client.permissions[0]
    assert [o.kind for o in options] == ["allow_once", "reject_once"]  # no "always" for a plan
    assert (plan_call.title, plan_call.kind) == ("Plan: Fix the typo in hello.txt", "switch_mode")
    shown = said(plan_call)
    assert "1. Rewrite hello.txt with the typo fixed\n   files: hello.txt\n2. Show the result" in shown
    assert "command: cat hello.txt" in shown
    assert hello.read_text() == "hello world\n"  # after its own question
    assert result_of(client, "w1").status == "completed"

    steps = ["Rewrite hello.txt with the typo fixed (files: hello.txt)", "Show the result (commands: cat hello.txt)"]
    assert plans(client) == [
        [(s, "pending") for s in steps],  # proposed
        [(s, "pending") for s in steps],  # approved: nothing done yet
        [(s, "completed") for s in steps],  # the run ended its turn
    ]

    later = RecordingClient()
    async with agent(cli, later, "--model", model) as conn:  # session/load replays the plan too
        await within(conn.load_session(cwd=str(cli.workspace), session_id=session.session_id, mcp_servers=[]))
    assert plans(later) == plans(client)
    assert [u.title for u in later.of("tool_call") if u.tool_call_id == "p1"] == ["Plan: Fix the typo in hello.txt"]


async def test_a_plan_rejected_with_a_reason_reaches_the_model_which_revises(
    cli: Cli, openai_wire: ScriptedHttpServer
) -> None:
    cli.write("hello.txt", "hello wrold\n")
    cli.write("quorum.toml", f'[providers.local]\ntype = "openai"\nbase_url = "{openai_wire.url}/v1"\n')
    cli.env["OPENAI_API_KEY"] = "sk-test"
    openai_wire.enqueue(
        Turn(text="My plan.", calls=[Call("p1", "propose_plan", PLAN)]),
        Turn(text="Revised.", calls=[Call("p2", "propose_plan", REVISED)]),
        Turn(text="Carried out."),
        Turn(text="Hello."),
    )
    reason = "keep a backup of hello.txt first"
    client = RecordingClient(answers=[("reject_once", reason), "allow_once"])
    async with agent(cli, client, "--model", "local:agent") as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "/plan") == "end_turn"  # the next prompt plans
        assert "Plan mode for the next prompt" in client.text()
        assert openai_wire.requests == []
        assert await prompt(conn, session.session_id, "fix the typo") == "end_turn"
        assert await prompt(conn, session.session_id, "and hello") == "end_turn"  # plans no more

    assert [p[0].tool_call_id for p in client.permissions] == ["p1", "p2"]
    assert all([o.kind for o in p[1]] == ["allow_once", "reject_once"] for p in client.permissions)
    rejected = result_of(client, "p1")
    assert rejected.status == "failed" and reason in said(rejected)

    bodies = [request.body for request in openai_wire.requests]
    assert len(bodies) == 4
    assert reason in json.dumps(bodies[1]["messages"])  # the model's next request: the reason, to revise
    assert reason not in json.dumps(bodies[0]["messages"])

    def tools(body: dict[str, Any]) -> set[str]:
        return {tool["function"]["name"] for tool in body.get("tools", [])}

    assert "propose_plan" in tools(bodies[0]) and "write_file" not in tools(bodies[0])  # planning
    assert "write_file" in tools(bodies[2]) and "propose_plan" not in tools(bodies[2])  # executing
    assert "write_file" in tools(bodies[3]) and "propose_plan" not in tools(bodies[3])  # the next prompt

    first = ["Rewrite hello.txt with the typo fixed (files: hello.txt)", "Show the result (commands: cat hello.txt)"]
    revised = [
        "Copy hello.txt to hello.bak (files: hello.bak)",
        "Rewrite hello.txt with the typo fixed (files: hello.txt)",
    ]
    assert plans(client) == [
        [(s, "pending") for s in first],  # proposed
        [],  # rejected: no plan now
        [(s, "pending") for s in revised],  # the revision, proposed
        [(s, "pending") for s in revised],  # approved
        [(s, "completed") for s in revised],  # the turn ended
    ]
