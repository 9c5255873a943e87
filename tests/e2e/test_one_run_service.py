"""Every driver runs through the one run service: the same task records the same events.

The acceptance test of issue 31 (decision 190): one scripted task — two low-risk reads in one
turn, a write a policy ``allow`` rule approves, a final answer — run through ``quorum run
--json``, ``Agent.run_stream``, ``POST /v1/runs`` with its event stream, and an ACP
``session/prompt``, records the same sequence of event types in the run log (``quorum logs show
ID --json``). A deferred write decided through ``quorum approve`` and through ``POST
/v1/runs/{id}/decisions`` continues the same way.
"""

from __future__ import annotations

import json
import subprocess
import sys
from typing import Any

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server, finished

pytest.importorskip("starlette")
pytest.importorskip("acp")

from tests.e2e.acp_client import RecordingClient, agent, prompt, within

TURNS: list[dict[str, Any]] = [
    {
        "text": "reading",
        "tool_calls": [
            {"name": "read_file", "arguments": {"path": "a.txt"}, "id": "r1"},
            {"name": "read_file", "arguments": {"path": "b.txt"}, "id": "r2"},
        ],
    },
    {
        "text": "writing",
        "tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "ab\n"}, "id": "w1"}],
    },
    {"text": "done"},
]
DEFERRED: list[dict[str, Any]] = [
    {
        "text": "writing",
        "tool_calls": [{"name": "write_file", "arguments": {"path": "later.txt", "content": "l\n"}, "id": "w9"}],
    },
    {"text": "all done"},
]
CONFIG = """
[[review.rules]]
decision = "allow"
tool = "write_file"
match = { path = "out.txt" }
reason = "the task's output file"
"""


def script(cli: Cli, turns: list[dict[str, Any]], name: str) -> str:
    path = cli.workspace.parent / name
    path.write_text(json.dumps({"conversation": "continue", "turns": turns}))
    return f"scripted:{path}"


def recorded_types(cli: Cli, run_id: str) -> list[str]:
    """The types of the run's recorded events, in order (after the ``run`` summary line)."""
    shown = cli("logs", "show", run_id, "--json")
    assert shown.code == 0, shown.stderr
    summary, *events = shown.events()
    assert summary["type"] == "run" and summary["run_id"] == run_id
    return [event["type"] for event in events]


def through_the_python_api(cli: Cli, model: str) -> str:
    """``Agent.run_stream`` in a process of its own, recording into the same run log."""
    code = (
        "import asyncio, sys\n"
        "from quorum import Agent, Review\n"
        "async def main():\n"
        "    review = Review(rules=[{'decision': 'allow', 'tool': 'write_file', 'match': {'path': 'out.txt'}}])\n"
        f"    agent = Agent({model!r}, builtins='all', review=review, workspace={str(cli.workspace)!r},\n"
        f"                  run_log={cli.env['QUORUM_DB']!r})\n"
        "    async with agent:\n"
        "        async for event in agent.run_stream('read a and b, write out'):\n"
        "            if event.type == 'run_started':\n"
        "                print(event.run_id)\n"
        "asyncio.run(main())\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", code], cwd=cli.workspace, env=cli.env, capture_output=True, text=True, timeout=90
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.split()[0]


async def through_acp(cli: Cli, model: str) -> str:
    async with agent(cli, RecordingClient(), "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "read a and b, write out") == "end_turn"
    return str(session.session_id)


async def test_every_driver_records_the_same_events_for_the_same_task(cli: Cli) -> None:
    cli.write("quorum.toml", CONFIG)
    cli.write("a.txt", "a\n")
    cli.write("b.txt", "b\n")
    model = script(cli, TURNS, "task.json")

    ran = cli("run", "--json", "--model", model, "read a and b, write out")
    assert ran.code == 0, ran.stderr
    by_cli = recorded_types(cli, ran.events()[0]["run_id"])
    assert by_cli.count("tool_result") == 3 and by_cli[-1] == "run_finished"
    assert (cli.workspace / "out.txt").read_text() == "ab\n"
    fresh = cli.workspace / "out.txt"  # removed before each driver: an existing file is written only once read

    fresh.unlink()
    by_api = recorded_types(cli, through_the_python_api(cli, model))

    fresh.unlink()
    server = Server(cli)
    try:
        run_id = server.start("read a and b, write out", model)
        streamed = list(server.events(run_id))
        assert finished(streamed[-1]) and streamed[-1].data["stop_reason"] == "end_turn"
    finally:
        server.kill()
    by_server = recorded_types(cli, run_id)
    assert [m.type for m in streamed] == by_server  # the stream is the run log

    fresh.unlink()
    by_acp = recorded_types(cli, await through_acp(cli, model))

    assert by_api == by_cli
    assert by_server == by_cli
    assert by_acp == by_cli


def test_a_deferred_call_continues_the_same_way_through_approve_and_the_api(cli: Cli) -> None:
    model = script(cli, DEFERRED, "deferred.json")

    def deferred() -> str:
        result = cli("run", "--defer", "--json", "--model", model, "write later")
        assert result.code == 4, result.stderr
        run_id: str = result.events()[0]["run_id"]
        return run_id

    first, second = deferred(), deferred()
    waiting = recorded_types(cli, first)
    assert waiting == recorded_types(cli, second) and waiting[-1] == "run_finished"

    approved = cli("approve", first, "--json")
    assert approved.code == 0, approved.stderr
    (cli.workspace / "later.txt").unlink()  # the second write creates it again, as the first did
    server = Server(cli)
    try:
        answer = server.decide(second, "w9", approve=True)
        assert answer.status_code == 200, answer.text
        assert finished(list(server.events(second))[-1])
    finally:
        server.kill()

    after_cli = recorded_types(cli, first)[len(waiting) :]
    after_api = recorded_types(cli, second)[len(waiting) :]
    assert after_cli[0] == "run_started" and after_cli[-1] == "run_finished"
    assert after_api == after_cli
    assert (cli.workspace / "later.txt").read_text() == "l\n"
