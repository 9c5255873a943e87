"""Fallback models (issue 33) over the real SDKs: a model that cannot answer hands the same request on.

The primary answers from one scripted wire server (Anthropic 529, OpenAI-compatible 503, after the
SDK's own retry), the fallback from the other; the run must end on the fallback with a
``model_fallback`` event, each model's tokens priced at its own price, and a 400 never falls back.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.events import ModelFallback, RunStopReason
from quorum.domain.messages import Message
from quorum.domain.responses import Usage
from quorum.infrastructure.providers.gateway_base import SdkGateway
from tests.fakes import FakeTools, JsonSchema, RecordingObserver, ScriptedReviewer
from tests.integration.providers.conftest import anthropic_gateway, openai_gateway
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Fail, Turn

RETRY_SOON = {"retry-after-ms": "1"}
PRICES = {"ant:claude-main": (3.0, 15.0), "oai:gpt-main": (2.0, 8.0), "ant:claude-spare": (1.0, 5.0)}
PRICES["oai:gpt-spare"] = (0.5, 1.5)


class Providers:
    """An LlmGateway over provider instances by name: ``NAME:MODEL`` → ``gateways[NAME].session(MODEL)``."""

    def __init__(self, **gateways: SdkGateway[Any]) -> None:
        self.gateways = gateways

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> Any:
        provider, _, model = model_id.partition(":")
        return self.gateways[provider].session(model, system_prompt, history=history)

    async def aclose(self) -> None:
        for gateway in self.gateways.values():
            await gateway.aclose()


class Prices:
    """USD per million input and output tokens, per model id."""

    def cost(self, model_id: str, usage: Usage) -> float | None:
        price = PRICES.get(model_id)
        if price is None:
            return None
        return (usage.input_tokens * price[0] + usage.output_tokens * price[1]) / 1e6


def _agent(gateway: Providers) -> tuple[RunAgent, RecordingObserver]:
    tools = FakeTools()

    async def read_file(args: dict[str, Any]) -> str:
        return f"contents of {args['path']}"

    tools.add("read_file", read_file)
    observer = RecordingObserver()
    agent = RunAgent(
        gateway=gateway,
        executor=tools,
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=observer,
        prices=Prices(),
    )
    return agent, observer


def _request(model_id: str, fallbacks: Sequence[str], *, stream: bool) -> RunRequest:
    params = ExecutionParams(stream=stream, fallback_models=tuple(fallbacks), compact="off")
    return RunRequest(task="what is in notes.txt?", model_id=model_id, params=params)


@pytest.mark.parametrize("stream", [False, True])
async def test_an_overloaded_anthropic_model_falls_back_for_the_rest_of_the_run(
    stream: bool, ant_server: ScriptedHttpServer, oai_server: ScriptedHttpServer
) -> None:
    ant_server.enqueue(Fail(529, "Overloaded", headers=RETRY_SOON), Fail(529, "Overloaded", headers=RETRY_SOON))
    oai_server.enqueue(
        Turn(calls=(Call("id_1", "read_file", {"path": "notes.txt"}),), usage=(100, 10)),
        Turn(text="The notes are read.", usage=(200, 20)),
    )
    gateway = Providers(ant=anthropic_gateway(ant_server, max_retries=1), oai=openai_gateway(oai_server, max_retries=1))
    agent, observer = _agent(gateway)

    result = await agent.execute(_request("ant:claude-main", ["oai:gpt-spare"], stream=stream))
    await gateway.aclose()

    assert result.stop_reason == RunStopReason.END_TURN and result.output == "The notes are read."
    [moved] = observer.of("model_fallback")
    assert (moved.from_, moved.to, moved.reason) == ("ant:claude-main", "oai:gpt-spare", "overloaded")
    assert "HTTP 529 after 1 retries" in moved.detail
    assert len(ant_server.requests) == 2  # the request and the SDK's one retry; nothing after the move
    first, second = oai_server.bodies()
    assert first["model"] == "gpt-spare" and "what is in notes.txt?" in str(first["messages"])
    assert [t["function"]["name"] for t in first["tools"]] == ["read_file"]  # the same tools
    assert "contents of notes.txt" in str(second["messages"])
    assert result.cost == pytest.approx((300 * 0.5 + 30 * 1.5) / 1e6)
    assert observer.types().index("model_fallback") < observer.types().index("tool_call")


async def test_a_503_mid_run_moves_the_history_and_prices_each_model_apart(
    oai_server: ScriptedHttpServer, ant_server: ScriptedHttpServer
) -> None:
    oai_server.enqueue(
        Turn(calls=(Call("id_1", "read_file", {"path": "notes.txt"}),), usage=(100, 10)),
        Fail(503, "Service Unavailable", headers=RETRY_SOON),
        Fail(503, "Service Unavailable", headers=RETRY_SOON),
    )
    ant_server.enqueue(
        Turn(calls=(Call("id_2", "read_file", {"path": "more.txt"}),), usage=(300, 30)),
        Turn(text="Both files are read.", usage=(400, 40)),
    )
    gateway = Providers(oai=openai_gateway(oai_server, max_retries=1), ant=anthropic_gateway(ant_server, max_retries=1))
    agent, observer = _agent(gateway)

    result = await agent.execute(_request("oai:gpt-main", ["ant:claude-spare"], stream=False))
    await gateway.aclose()

    assert result.stop_reason == RunStopReason.END_TURN and result.output == "Both files are read."
    [moved] = observer.of("model_fallback")
    assert (moved.from_, moved.to, moved.reason) == ("oai:gpt-main", "ant:claude-spare", "server_error")
    first, second = ant_server.bodies()
    assert first["model"] == "claude-spare"
    sent = first["messages"]  # the same history: the task, the call, its result
    assert [m["role"] for m in sent] == ["user", "assistant", "user"]
    assert sent[1]["content"][-1]["id"] == "id_1" and sent[2]["content"][0]["tool_use_id"] == "id_1"
    assert "contents of notes.txt" in str(sent[2]) and "contents of more.txt" in str(second["messages"])
    assert (result.usage.input_tokens, result.usage.output_tokens) == (800, 80)
    primary = (100 * 2.0 + 10 * 8.0) / 1e6
    spare = (700 * 1.0 + 70 * 5.0) / 1e6
    assert result.cost == pytest.approx(primary + spare)


@pytest.mark.parametrize("status", [400, 401, 404])
async def test_a_refused_request_does_not_fall_back(
    status: int, ant_server: ScriptedHttpServer, oai_server: ScriptedHttpServer
) -> None:
    ant_server.enqueue(Fail(status, "bad request"))
    gateway = Providers(ant=anthropic_gateway(ant_server, max_retries=1), oai=openai_gateway(oai_server, max_retries=1))
    agent, observer = _agent(gateway)

    result = await agent.execute(_request("ant:claude-main", ["oai:gpt-spare"], stream=True))
    await gateway.aclose()

    assert result.stop_reason == RunStopReason.ERROR and "bad request" in (result.detail or "")
    assert observer.of("model_fallback") == [] and oai_server.requests == []


async def test_the_last_model_failing_ends_the_run_with_its_error(
    ant_server: ScriptedHttpServer, oai_server: ScriptedHttpServer
) -> None:
    ant_server.enqueue(Fail(529, "Overloaded"))
    oai_server.enqueue(Fail(500, "boom"))
    gateway = Providers(ant=anthropic_gateway(ant_server), oai=openai_gateway(oai_server))
    agent, observer = _agent(gateway)

    result = await agent.execute(_request("ant:claude-main", ["oai:gpt-spare"], stream=False))
    await gateway.aclose()

    assert result.stop_reason == RunStopReason.ERROR and "HTTP 500" in (result.detail or "")
    assert [(e.from_, e.to) for e in observer.of("model_fallback")] == [("ant:claude-main", "oai:gpt-spare")]


def test_the_event_keeps_from_in_json() -> None:
    event = ModelFallback.model_validate({"from": "a:x", "to": "b:y", "reason": "timeout"})
    assert event.model_dump(mode="json")["from"] == "a:x" and '"from":"a:x"' in event.model_dump_json()


async def _vote_through(gateway: Providers, fallback: str | None) -> tuple[Any, list[Any]]:
    from quorum.application.run_context import current_run_events
    from quorum.domain.review import QuorumRule
    from quorum.infrastructure.review.quorum import QuorumReviewer
    from quorum.infrastructure.review.voters import ModelVoter
    from tests.integration.review.conftest import context_for, high_call

    events: list[Any] = []
    token = current_run_events.set(events.append)  # the run the panel reviews for hears of the move
    try:
        voters = [ModelVoter(gateway, "oai:gpt-main", fallback=fallback)]  # type: ignore[arg-type]
        call = high_call(command="rm -rf build")
        decision = await QuorumReviewer(voters, rule=QuorumRule.parse("unanimous")).review(call, context_for(call))
    finally:
        current_run_events.reset(token)
        await gateway.aclose()
    return decision, events


async def test_a_reviewer_whose_model_answers_503_votes_through_its_fallback(
    oai_server: ScriptedHttpServer, ant_server: ScriptedHttpServer
) -> None:
    oai_server.enqueue(Fail(503, "Service Unavailable", headers=RETRY_SOON), Fail(503, "Service Unavailable"))
    verdict = Call("v1", "submit_verdict", {"verdict": "approve", "reason": "only the build directory"})
    ant_server.enqueue(Turn(calls=(verdict,), usage=(50, 5)))
    gateway = Providers(oai=openai_gateway(oai_server, max_retries=1), ant=anthropic_gateway(ant_server, max_retries=1))

    decision, events = await _vote_through(gateway, "ant:claude-spare")

    assert decision.approved and decision.decided_by == "quorum"
    [vote] = decision.votes
    assert (vote.reviewer, vote.verdict.value, vote.model) == ("oai:gpt-main", "approve", "ant:claude-spare")
    assert vote.usage == Usage(input_tokens=50, output_tokens=5)  # priced as the fallback's tokens
    [moved] = [e for e in events if e.type == "model_fallback"]
    assert (moved.from_, moved.to, moved.reason, moved.reviewer) == (
        "oai:gpt-main",
        "ant:claude-spare",
        "server_error",
        "oai:gpt-main",
    )
    [body] = ant_server.bodies()
    assert [t["name"] for t in body["tools"]] == ["submit_verdict"]


async def test_without_a_fallback_the_same_503_is_an_error_vote(
    oai_server: ScriptedHttpServer, ant_server: ScriptedHttpServer
) -> None:
    oai_server.enqueue(Fail(503, "Service Unavailable"))
    gateway = Providers(oai=openai_gateway(oai_server), ant=anthropic_gateway(ant_server))

    decision, events = await _vote_through(gateway, None)

    assert not decision.approved and decision.votes[0].verdict.value == "error"
    assert [e for e in events if e.type == "model_fallback"] == []
