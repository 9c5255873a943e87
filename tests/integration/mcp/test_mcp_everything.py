"""Every tool of ``@modelcontextprotocol/server-everything``, over stdio and streamable HTTP, in one scripted run.

Quorum is composed as the CLI does (the real container) with an OpenAI-compatible provider pointed
at a local wire server (``tests/support/openai_server.py``) that plays the model and records what
it was sent. The script is generated from the tools the server offers once Quorum declared its
client capabilities: every tool is called, with harmless arguments (``example_arguments``, and a
few chosen here so that nothing reaches the network). The test then asserts, per kind of content,
what the model received in the requests; a tool the test does not classify fails it.
"""

from __future__ import annotations

import base64
import io
import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quorum.application.execution import RunRequest
from quorum.composition.container import build_container
from quorum.composition.options import AppOptions
from quorum.domain.elicitation import ElicitationAnswer, ElicitationRequest
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.source import McpToolSource
from quorum.infrastructure.providers.offline.test_model import example_arguments
from quorum.infrastructure.review.terminal import TerminalPrompt
from tests.fakes import RecordingObserver
from tests.support.net import free_port, wait_listening
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

DIST = Path(__file__).resolve().parents[2] / ".npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
pytestmark = pytest.mark.skipif(
    not DIST.is_file(), reason=f"server-everything is not installed ({DIST}); .ci/run installs it"
)

KINDS = {
    "echo": "text",
    "get-sum": "text",
    "get-env": "text",
    "get-annotated-message": "text",
    "toggle-subscriber-updates": "text",
    "get-tiny-image": "image",
    "get-resource-reference": "embedded resource",
    "gzip-file-as-resource": "embedded resource",
    "get-resource-links": "resource link",
    "get-structured-content": "structured content",
    "trigger-long-running-operation": "progress",
    "toggle-simulated-logging": "logging",
    "get-roots-list": "roots",
    "trigger-sampling-request": "sampling",
    "trigger-elicitation-request": "elicitation",
    "trigger-url-elicitation": "url elicitation",
    "simulate-research-query": "task",
}
"""Each tool the server offers Quorum, by what the test checks the model received for it."""

NOT_OFFERED: set[str] = set()
"""Listed by the server but not offered to the model (none: task-only tools run as MCP tasks)."""

ARGUMENTS: dict[str, dict[str, Any]] = {
    "echo": {"message": "hello from the test"},
    "get-sum": {"a": 2, "b": 40},
    "get-resource-reference": {"resourceType": "Text", "resourceId": 2},
    "get-resource-links": {"count": 2},
    "get-structured-content": {"location": "Chicago"},
    "trigger-long-running-operation": {"duration": 0.3, "steps": 3},
    "gzip-file-as-resource": {  # a data URI: the default fetches a file from GitHub
        "name": "note.txt.gz",
        "data": "data:text/plain;base64," + base64.b64encode(b"a note to compress").decode(),
        "outputType": "resource",
    },
    "trigger-url-elicitation": {"url": "https://example.org/consent"},  # declined: never opened
    "get-annotated-message": {"messageType": "success", "includeImage": False},
    "simulate-research-query": {"topic": "tides"},
}
ONE_BY_ONE = ("trigger-sampling-request", "trigger-elicitation-request")
"""Called twice each, one call per turn: sampling approved then denied, elicitation accepted then declined."""


@pytest.fixture(scope="module", params=["stdio", "http"])
def server(request: pytest.FixtureRequest) -> Iterator[dict[str, Any]]:
    """The ``[mcp.servers.ev]`` table: node over stdio, or the streamable-HTTP server started here."""
    if request.param == "stdio":
        yield {"command": "node", "args": [str(DIST), "stdio"]}
        return
    port = free_port()
    process = subprocess.Popen(
        ["node", str(DIST), "streamableHttp"],
        env={**os.environ, "PORT": str(port)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        wait_listening(process, port, "server-everything (streamableHttp)")
        yield {"url": f"http://127.0.0.1:{port}/mcp"}
    finally:
        process.terminate()
        process.wait(10)


class Elicitation:
    """The application's ``on_elicitation``: accepts the first form (a name), declines the next."""

    def __init__(self) -> None:
        self.asked: list[ElicitationRequest] = []

    async def __call__(self, request: ElicitationRequest) -> ElicitationAnswer:
        self.asked.append(request)
        if len(self.asked) == 1:
            return ElicitationAnswer(action="accept", content={"name": "Ada", "check": True, "email": "a@b.org"})
        return ElicitationAnswer(action="decline")


async def _offered(settings: dict[str, Any]) -> tuple[dict[str, dict[str, Any]], set[str]]:
    """The tools offered to the model (name → input schema) and every tool the server listed."""
    source = McpToolSource({"ev": McpServerSettings(**settings)})
    try:
        offered = {t.name.removeprefix("mcp__ev__"): t.input_schema for t in await source.list_tools()}
        listed = {t.name for t in source.connections["ev"].tools or []}
    finally:
        await source.aclose()
    return {k: dict(v) for k, v in offered.items() if k != "mcp_read_resource"}, listed


def _config(tmp_path: Path, server: dict[str, Any], model: str, base_url: str) -> Path:
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    table = {**server, "risk": "low", "sampling": "ask", "sampling_model": model, "log_level": "debug"}
    lines = [
        f"model = {json.dumps(model)}",
        "[providers.local]",
        'type = "openai"',
        f"base_url = {json.dumps(base_url)}",
        'api_key = "x"',
        "max_retries = 0",
        "[agent]",
        "max_tool_turns = 10",
        "[tools]",
        'enabled = ["mcp__*", "mcp_read_resource"]',
        f"workspace = {json.dumps(str(workspace))}",
        "[storage]",
        "enabled = false",
        "[mcp.servers.ev]",
        *(f"{key} = {json.dumps(value)}" for key, value in table.items()),
    ]
    path = tmp_path / "quorum.toml"
    path.write_text("\n".join(lines) + "\n")
    return path


async def test_every_tool_is_called_and_the_model_receives_each_kind(server: dict[str, Any], tmp_path: Path) -> None:
    offered, listed = await _offered(server)
    unknown = (listed - NOT_OFFERED) - set(KINDS)
    assert not unknown, f"server-everything offers tools this test does not classify: {sorted(unknown)}"
    assert set(offered) == set(KINDS), sorted(set(KINDS) ^ set(offered))  # every classified tool is offered
    assert listed >= NOT_OFFERED and not NOT_OFFERED & set(offered)

    def call(tool: str, n: int) -> Call:
        return Call(f"c_{n}", f"mcp__ev__{tool}", ARGUMENTS.get(tool) or example_arguments(offered[tool]))

    first = [name for name in sorted(offered) if name not in ONE_BY_ONE]
    wire = openai_server()
    try:
        wire.enqueue(
            Turn(calls=tuple(call(name, i) for i, name in enumerate(first))),
            Turn(calls=(call("trigger-sampling-request", 100),)),
            Turn(text="a sampled answer", usage=(11, 5)),  # the sampling request, approved
            Turn(calls=(call("trigger-sampling-request", 101),)),  # denied: no request reaches the wire
            Turn(calls=(call("trigger-elicitation-request", 102),)),
            Turn(calls=(call("trigger-elicitation-request", 103),)),
            Turn(text="all done"),
        )
        read_fd, write_fd = os.pipe()
        os.write(write_fd, b"y\nn\n")  # the person at the terminal: approve the first sampling, deny the second
        os.close(write_fd)
        elicitation = Elicitation()
        collected = RecordingObserver()
        config = _config(tmp_path, server, "local:m", f"{wire.url}/v1")
        container = build_container(
            AppOptions(config_path=config),
            env={},
            config_dir=None,
            observer=collected,
            line_prompt=TerminalPrompt(read_fd, io.StringIO()),
            on_elicitation=elicitation,
        )
        executor = container.tool_executor()
        try:
            app = container.settings()
            request = RunRequest(task="use every tool", model_id="local:m", params=app.agent.execution_params())
            result = await container.run_agent().execute(request)
        finally:
            await executor.aclose()
            await container.gateway().aclose()
            os.close(read_fd)
        bodies = wire.bodies()
    finally:
        wire.stop()
    assert result.stop_reason == "end_turn", result.detail

    called = {e.name.removeprefix("mcp__ev__") for e in collected.of("tool_call")}
    assert called == set(KINDS)  # every offered tool was called
    received = _tool_messages(bodies)  # call id → the tool message's text the model received

    def got(tool: str, n: int | None = None) -> str:
        ids = [f"c_{first.index(tool)}"] if n is None else [f"c_{n}"]
        return received[ids[0]]

    # text
    assert "Echo: hello from the test" in got("echo")
    assert "42" in got("get-sum")
    # image: named in the text, sent as an image_url part in a user message after the tool messages
    assert "[image: image/png, 4 KB]" in got("get-tiny-image") and "iVBOR" not in got("get-tiny-image")
    images = [
        p
        for b in bodies
        for m in b.get("messages", [])
        if m["role"] == "user" and isinstance(m["content"], list)
        for p in m["content"]
        if p.get("type") == "image_url"
    ]
    assert images and images[0]["image_url"]["url"].startswith("data:image/png;base64,iVBOR")
    # embedded resources: text inlined, a blob described (never as base64 text)
    assert "[resource demo://resource/dynamic/text/2 (text/plain)]\nResource 2:" in got("get-resource-reference")
    gz = got("gzip-file-as-resource")
    assert "note.txt.gz" in gz and base64.b64encode(b"a note").decode()[:8] not in gz
    # resource links keep their name and URI
    assert "[resource link " in got("get-resource-links") and "<demo://resource/dynamic/text/2>" in got(
        "get-resource-links"
    )
    # structured content
    assert json.loads(got("get-structured-content"))["temperature"] == 36
    # roots: the workspace
    assert (tmp_path / "workspace").resolve().as_uri() in got("get-roots-list")
    # progress: recorded for the long-running call, the last report complete
    (long_call,) = [e for e in collected.of("tool_call") if e.name == "mcp__ev__trigger-long-running-operation"]
    progress = [e for e in collected.of("progress") if e.call_id == long_call.id and e.total is not None]
    assert progress and (progress[-1].progress, progress[-1].total) == (3, 3)
    assert "Long running operation completed" in got("trigger-long-running-operation")
    # task: created, followed (its status messages are the call's progress), its result fetched
    report = got("simulate-research-query")
    assert "# Research Report: tides" in report and "Stage 4: Generating report" in report
    (task_call,) = [e for e in collected.of("tool_call") if e.name == "mcp__ev__simulate-research-query"]
    statuses = [e.message for e in collected.of("progress") if e.call_id == task_call.id]
    assert statuses and statuses[0].startswith("MCP task ") and any("Synthesizing findings" in s for s in statuses)
    # logging: turned on, and server log messages recorded as events
    assert "logging" in got("toggle-simulated-logging").lower()
    assert any(log.server == "ev" for log in collected.of("mcp_log")), collected.of("mcp_log")
    # sampling: approved (the wire served it, the model got the answer), then denied
    assert "a sampled answer" in got("trigger-sampling-request", 100)
    (sampled,) = [b for b in bodies if not b.get("tools")]  # the one sampling request the wire saw
    assert "example" in json.dumps(sampled["messages"])  # the tool's prompt argument
    assert "sampling refused" in got("trigger-sampling-request", 101)
    decisions = [(e.approved, e.decided_by) for e in collected.of("mcp_sampling")]
    assert decisions == [(True, "human"), (False, "human")]
    # elicitation: accepted through the callback (with the schema's defaults), then declined
    accepted = got("trigger-elicitation-request", 102)
    assert "User provided the requested information" in accepted and "- Name: Ada" in accepted
    assert "It was a dark and stormy night." in accepted  # a default the callback left out
    assert "User declined" in got("trigger-elicitation-request", 103)
    assert [e.action for e in collected.of("mcp_elicitation") if e.decided_by == "callback"] == ["accept", "decline"]
    # URL-mode elicitation is declined without opening anything
    assert "decline" in got("trigger-url-elicitation").lower()
    # sampling tokens are counted in the run
    assert result.usage.input_tokens >= 11 and result.usage.output_tokens >= 5


def _tool_messages(bodies: list[Any]) -> dict[str, str]:
    """Every tool message the model was sent, by call id (the last request holds them all)."""
    found: dict[str, str] = {}
    for body in bodies:
        for message in body.get("messages", []):
            if message["role"] == "tool":
                content = message["content"]
                found[message["tool_call_id"]] = content if isinstance(content, str) else json.dumps(content)
    return found
