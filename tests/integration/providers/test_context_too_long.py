"""A provider refusing a request as too long: one compaction and one retry (issue 23), over each wire."""

from __future__ import annotations

from typing import Any

import pytest

from quorum.application import model_wording as say
from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.events import RunStopReason
from tests.fakes import FakeTools, JsonSchema, RecordingObserver, ScriptedReviewer
from tests.integration.providers.conftest import anthropic_gateway, openai_gateway
from tests.integration.providers.test_run_agent_loop import OneProvider
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Fail, Turn

REFUSALS = {
    "openai": Fail(
        400,
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
        code="context_length_exceeded",
    ),
    "anthropic": Fail(400, "prompt is too long: 210044 tokens > 200000 maximum"),
    "llama.cpp": Fail(400, "the request exceeds the available context size, try increasing it", code="400"),
}


def _agent(kind: str, server: ScriptedHttpServer) -> tuple[RunAgent, Any, RecordingObserver]:
    gateway = anthropic_gateway(server) if kind == "anthropic" else openai_gateway(server)
    tools = FakeTools()

    async def read_file(args: dict[str, Any]) -> str:
        return "x" * 3000

    tools.add("read_file", read_file)
    observer = RecordingObserver()
    agent = RunAgent(
        gateway=OneProvider("local", gateway),
        executor=tools,
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=observer,
    )
    return agent, gateway, observer


@pytest.mark.parametrize("kind", ["openai", "anthropic", "llama.cpp"])
async def test_a_context_too_long_refusal_is_compacted_and_retried_once(
    kind: str, oai_server: ScriptedHttpServer, ant_server: ScriptedHttpServer
) -> None:
    server = ant_server if kind == "anthropic" else oai_server
    server.enqueue(
        Turn(calls=(Call("id_1", "read_file", {"path": "big.txt"}),), usage=(50, 5)),
        REFUSALS[kind],
        Turn(text="SUMMARY: the user wants big.txt read", usage=(40, 8)),  # the summary request
        Turn(text="It is all x.", usage=(60, 5)),
    )
    agent, gateway, observer = _agent(kind, server)
    request = RunRequest(task="what is in big.txt?", model_id="local:m", params=ExecutionParams(stream=False))
    result = await agent.execute(request)
    await gateway.aclose()
    assert result.stop_reason == RunStopReason.END_TURN and result.output == "It is all x."
    [compacted] = observer.of("context_compacted")
    assert compacted.turn == 2
    bodies = server.bodies()
    summary_body, retried = bodies[2], bodies[3]
    assert "tools" not in summary_body  # the summary is asked for without tools
    text = str(retried)
    assert "what is in big.txt?" in text and "SUMMARY: the user wants big.txt read" in text  # the task survives
    assert "id_1" in text and "x" * 3000 in text  # the call and its result, still paired and whole
    assert say.SUMMARY_INSTRUCTIONS in str(summary_body)


async def test_a_second_refusal_ends_the_run_as_an_error(oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(
        Turn(calls=(Call("id_1", "read_file", {"path": "big.txt"}),), usage=(50, 5)),
        REFUSALS["openai"],
        Turn(text="SUMMARY", usage=(40, 8)),
        REFUSALS["openai"],
    )
    agent, gateway, _ = _agent("openai", oai_server)
    result = await agent.execute(RunRequest(task="t", model_id="local:m", params=ExecutionParams(stream=False)))
    await gateway.aclose()
    assert result.stop_reason == RunStopReason.ERROR and "context length" in (result.detail or "")
