"""The whole loop: RunAgent with a real provider session against a local server and fake tools."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.ports.llm import TurnInput
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.events import RunStopReason
from quorum.domain.messages import Message
from quorum.domain.tools import ToolParameter
from quorum.infrastructure.plugins.contracts import ProviderGateway
from tests.fakes import FakeTools, JsonSchema, RecordingObserver, ScriptedReviewer
from tests.integration.providers.conftest import anthropic_gateway, openai_gateway
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Turn


class OneProvider:
    """An LlmGateway over one provider instance: ``NAME:MODEL`` → ``gateway.session(MODEL)``."""

    def __init__(self, name: str, gateway: ProviderGateway) -> None:
        self.name, self.gateway = name, gateway

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> Any:
        provider, _, model = model_id.partition(":")
        assert provider == self.name
        return self.gateway.session(model, system_prompt, history=history)


SCRIPT = [
    Turn(text="I will read the file.", calls=(Call("id_1", "read_file", {"path": "notes.txt"}),), usage=(10, 5)),
    Turn(calls=(Call("id_2", "list_dir", {}), Call("id_3", "read_file", {"path": "b.txt"})), usage=(20, 6)),
    Turn(text="The notes say hello.", usage=(30, 7)),
]


def _tools() -> FakeTools:
    tools = FakeTools()

    async def read_file(args: dict[str, Any]) -> str:
        return f"contents of {args['path']}"

    async def list_dir(args: dict[str, Any]) -> str:
        return "notes.txt b.txt"

    tools.add("read_file", read_file, params=[ToolParameter(name="path", param_type="path")])
    tools.add("list_dir", list_dir)
    return tools


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "plain"])
@pytest.mark.parametrize("kind", ["openai", "anthropic"])
async def test_two_tool_turns_then_a_final_answer(
    kind: str, stream: bool, oai_server: ScriptedHttpServer, ant_server: ScriptedHttpServer
) -> None:
    server = oai_server if kind == "openai" else ant_server
    gateway = openai_gateway(server) if kind == "openai" else anthropic_gateway(server)
    server.enqueue(*SCRIPT)
    tools, observer = _tools(), RecordingObserver()
    agent = RunAgent(
        gateway=OneProvider("local", gateway),
        executor=tools,
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=observer,
    )

    result = await agent.execute(
        RunRequest(task="what do the notes say?", model_id="local:m", params=ExecutionParams(stream=stream))
    )

    await gateway.aclose()
    assert result.stop_reason == RunStopReason.END_TURN
    assert (result.turns, result.output) == (3, "The notes say hello.")
    assert (result.usage.input_tokens, result.usage.output_tokens) == (60, 18)
    assert tools.executed == ["id_1", "id_2", "id_3"]
    assert "".join(e.text for e in observer.of("text")) == "I will read the file.The notes say hello."
    bodies = server.bodies()
    assert len(bodies) == 3 and all(bool(b.get("stream")) is stream for b in bodies)
    assert [t.get("name") or t["function"]["name"] for t in bodies[0]["tools"]] == ["read_file", "list_dir"]
    sent_results = _results(kind, bodies[2])
    assert sent_results == [
        ("id_1", "contents of notes.txt"),
        ("id_2", "notes.txt b.txt"),
        ("id_3", "contents of b.txt"),
    ]


def _results(kind: str, body: dict[str, Any]) -> list[tuple[str, str]]:
    """Every tool result in a request body, as (call id, content)."""
    if kind == "openai":
        return [(m["tool_call_id"], m["content"]) for m in body["messages"] if m["role"] == "tool"]
    return [
        (b["tool_use_id"], b["content"])
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    ]


async def test_a_run_started_on_openai_continues_on_anthropic(
    oai_server: ScriptedHttpServer, ant_server: ScriptedHttpServer
) -> None:
    first, second = openai_gateway(oai_server), anthropic_gateway(ant_server)
    oai_server.enqueue(*SCRIPT)
    ant_server.enqueue(Turn(text="Yes."))
    opened: list[Any] = []

    class Keeping(OneProvider):
        def session(self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> Any:
            opened.append(super().session(model_id, system_prompt, history=history))
            return opened[-1]

    run = RunAgent(
        gateway=Keeping("local", first),
        executor=_tools(),
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=RecordingObserver(),
    )
    await run.execute(RunRequest(task="what do the notes say?", model_id="local:m"))
    history = opened[0].history()

    follow_up = second.session("claude-x", history=history)
    await follow_up.request(TurnInput.user("Sure?"))

    await first.aclose()
    await second.aclose()
    messages = ant_server.bodies()[0]["messages"]
    assert [m["role"] for m in messages] == [
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
        "assistant",
        "user",
    ]
    assert messages[1]["content"][1] == {
        "type": "tool_use",
        "id": "id_1",
        "name": "read_file",
        "input": {"path": "notes.txt"},
    }
    assert messages[4]["content"][0] == {
        "type": "tool_result",
        "tool_use_id": "id_2",
        "content": "notes.txt b.txt",
        "is_error": False,
    }
    marker = {"type": "ephemeral"}  # prompt caching marks the newest message (cache = "auto")
    assert messages[-1] == {"role": "user", "content": [{"type": "text", "text": "Sure?", "cache_control": marker}]}
