"""The Python API: ``Agent`` runs, streams, reviews, closes, and serves many runs at once.

Models are the offline ``scripted:`` provider and the real OpenAI SDK against the local wire
server; MCP is the real probe server over stdio.
"""

from __future__ import annotations

import asyncio
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from quorum import Agent, Decision, Review, ReviewRequest, RunResult, ToolContext, tool
from quorum.domain.errors import ConfigurationError
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Turn

REPO = Path(__file__).resolve().parents[3]
PROBE = REPO / "tests" / "support" / "mcp_servers" / "probe_server.py"


@tool(risk="low")
async def weather(city: str, ctx: ToolContext) -> str:
    """Current weather for a city.

    Args:
        city: City name.
    """
    return f"sunny in {city} (run {ctx.run_id}, workspace {ctx.workspace})"


@tool(risk="high")
def save(path: str, text: str) -> str:
    """Save a note (a write, so it is reviewed)."""
    Path(path).write_text(text)
    return "saved"


def script(tmp_path: Path, turns: list[dict[str, Any]], name: str = "script.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"turns": turns}))
    return f"scripted:{path}"


def local(openai_wire: ScriptedHttpServer) -> dict[str, dict[str, Any]]:
    return {"local": {"type": "openai", "base_url": f"{openai_wire.url}/v1", "api_key": "x", "max_retries": 0}}


async def test_a_run_calls_tools_with_their_run_and_returns_every_event(tmp_path: Path) -> None:
    model = script(tmp_path, [{"tool_calls": [{"name": "weather", "arguments": {"city": "Paris"}}]}, {"text": "hat"}])
    async with Agent(model, tools=[weather]) as agent:
        result = await agent.run("What should I wear?")
    assert isinstance(result, RunResult)
    assert (result.stop_reason, result.output, result.turns) == ("end_turn", "hat", 2)
    (outcome,) = [e for e in result.events if e.type == "tool_result"]
    assert outcome.output == f"sunny in Paris (run {result.run_id}, workspace {Path.cwd().resolve()})"
    assert result.events[0].type == "run_started" and result.events[-1].type == "run_finished"


async def test_the_human_callback_decides_and_sync_and_async_callbacks_work(tmp_path: Path) -> None:
    target = tmp_path / "note.txt"
    turns = [
        {"tool_calls": [{"name": "save", "arguments": {"path": str(target), "text": "first"}}]},
        {"tool_calls": [{"name": "save", "arguments": {"path": str(tmp_path / "no.txt"), "text": "x"}}]},
        {"text": "done"},
    ]
    asked: list[ReviewRequest] = []

    def sync_human(request: ReviewRequest) -> Decision:
        asked.append(request)
        return Decision(approved="note" in request.arguments["path"], reason="only notes")

    async def async_human(request: ReviewRequest) -> bool:
        asked.append(request)
        return "note" in request.arguments["path"]

    for human in (sync_human, async_human):
        target.unlink(missing_ok=True)
        async with Agent(script(tmp_path, turns), tools=[save], review=Review(human=human)) as agent:
            result = await agent.run("save notes")
        reviews = [e for e in result.events if e.type == "review"]
        assert [r.approved for r in reviews] == [True, False]
        assert target.read_text() == "first" and not (tmp_path / "no.txt").exists()
    assert len(asked) == 4 and asked[0].tool == "save" and asked[0].run_id


async def test_without_a_human_calls_needing_one_are_rejected(tmp_path: Path) -> None:
    turns = [
        {"tool_calls": [{"name": "save", "arguments": {"path": str(tmp_path / "x"), "text": "x"}}]},
        {"text": "ok"},
    ]
    async with Agent(script(tmp_path, turns), tools=[save]) as agent:
        result = await agent.run("save")
    (review,) = [e for e in result.events if e.type == "review"]
    assert not review.approved and not (tmp_path / "x").exists()


def test_config_none_reads_no_file_and_no_quorum_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quorum.toml").write_text("[agent]\nmax_tool_turns = 0\n")  # invalid if it were read
    monkeypatch.setenv("QUORUM_AGENT__TIMEOUT_SECONDS", "-1")
    monkeypatch.setenv("QUORUM_MODEL", "nosuch:model")
    agent = Agent("test", max_tool_turns=4)
    result = agent.run_sync("hello")
    assert result.stop_reason == "end_turn"
    started = result.events[0]
    assert started.type == "run_started" and started.model == "test"
    with pytest.raises(ConfigurationError, match="max_tool_turns"):
        Agent.from_config()  # the CLI's layering does read ./quorum.toml


def test_a_config_path_is_read_and_keyword_arguments_win(tmp_path: Path) -> None:
    config = tmp_path / "agent.toml"
    config.write_text('model = "test"\n[agent]\nmax_tool_turns = 2\n')
    assert Agent(config=config).run_sync("hi").events[0].model == "test"
    with pytest.raises(TypeError, match="no_such_setting"):
        Agent("test", no_such_setting=1)


async def test_run_stream_yields_exactly_the_events_json_prints(tmp_path: Path) -> None:
    turns = [{"tool_calls": [{"name": "list_dir", "arguments": {}}]}, {"text": "the workspace holds a file"}]
    model = script(tmp_path, turns)
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "a.txt").write_text("a")
    async with Agent(model, builtins="read_only", workspace=tmp_path / "ws") as agent:
        streamed = [e.model_dump(mode="json") async for e in agent.run_stream("look")]
    printed = subprocess.run(
        [sys.executable, "-m", "quorum.cli.main", "run", "--json", "--no-log", "--model", model, "look"],
        cwd=tmp_path / "ws",
        capture_output=True,
        text=True,
        env={k: v for k, v in os.environ.items() if not k.startswith("QUORUM_")},
        timeout=60,
        check=False,
    )
    cli = [json.loads(line) for line in printed.stdout.splitlines()]

    def normal(events: list[dict[str, Any]]) -> list[dict[str, Any]]:
        drop = {"run_id", "duration_ms"}
        return [{k: v for k, v in e.items() if k not in drop} for e in events]

    assert normal(streamed) == normal(cli)


async def test_leaving_run_stream_early_cancels_the_run(tmp_path: Path) -> None:
    turns = [{"tool_calls": [{"name": "weather", "arguments": {"city": "x"}}]}, {"text": "done"}]
    async with Agent(script(tmp_path, turns), tools=[weather]) as agent:
        async for event in agent.run_stream("go"):
            if event.type == "tool_call":
                break
        again = await agent.run("go")  # the agent is still usable
    assert again.stop_reason == "end_turn"


async def test_async_with_closes_http_clients_and_mcp_servers(openai_wire: ScriptedHttpServer) -> None:
    openai_wire.enqueue(Turn(calls=(Call("p", "mcp__probe__pid", {}),)), Turn(text="done"))
    servers = {"probe": {"command": sys.executable, "args": [str(PROBE)], "risk": "low"}}
    async with Agent("local:m", providers=local(openai_wire), mcp_servers=servers, stream=False) as agent:
        result = await agent.run("which pid?")
    (outcome,) = [e for e in result.events if e.type == "tool_result"]
    pid = int(outcome.output.strip())
    async with asyncio.timeout(10):  # the server was told to stop; it exits soon after
        while _alive(pid):
            await asyncio.sleep(0.02)
    assert not _alive(pid)


async def test_two_hundred_concurrent_runs_each_recorded_under_its_own_id(tmp_path: Path) -> None:
    turns = [{"tool_calls": [{"name": "weather", "arguments": {"city": "Oslo"}}]}, {"text": "cold"}]
    log = tmp_path / "runs.db"
    async with Agent(script(tmp_path, turns), tools=[weather], run_log=log) as agent:
        results = await asyncio.gather(*(agent.run(f"task {i}") for i in range(200)))
    assert {r.stop_reason for r in results} == {"end_turn"}
    assert len({r.run_id for r in results}) == 200
    with sqlite3.connect(log) as db:
        counts = dict(db.execute("SELECT run_id, COUNT(*) FROM events GROUP BY run_id").fetchall())
        tasks = dict(db.execute("SELECT id, task FROM runs").fetchall())
        orders = db.execute(
            "SELECT run_id, GROUP_CONCAT(type, ',') FROM events GROUP BY run_id ORDER BY seq"
        ).fetchall()
    for result in results:
        assert counts[result.run_id] == len(result.events)
        assert tasks[result.run_id] == result.events[0].task  # type: ignore[union-attr]
        outcome = next(e for e in result.events if e.type == "tool_result")
        assert result.run_id in outcome.output  # each tool call saw its own run
    assert all(order.split(",")[0] == "run_started" for _, order in orders)


def _alive(pid: int) -> bool:
    try:
        status = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    return "State:\tZ" not in status
