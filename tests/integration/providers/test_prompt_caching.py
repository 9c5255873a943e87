"""Prompt caching and its cost, through the real SDKs to the scripted wire servers (decision 210).

Anthropic: every request carries between one and four ``cache_control`` breakpoints, one on the
newest message from the second request on; ``cache = "off"`` sends none. OpenAI: one
``prompt_cache_key`` for every request of a run and of the run continuing it. Both: the scripted
cache reads and writes come back in ``run_finished.usage`` and are priced by the formula.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.ports.llm import TurnInput
from quorum.application.ports.reviewer import ReviewContext
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.errors import ProviderError
from quorum.domain.events import RunStopReason
from quorum.domain.messages import Message
from quorum.domain.tools import RiskLevel, ToolCall, ToolDefinition, ToolResult
from quorum.infrastructure.config.loader import ProviderInstance
from quorum.infrastructure.pricing import ProviderPrices, TokenPrices
from quorum.infrastructure.providers.anthropic.settings import AnthropicSettings
from quorum.infrastructure.providers.openai.settings import OpenAISettings
from quorum.infrastructure.review.voters import ModelVoter
from tests.fakes import JsonSchema, RecordingObserver, ScriptedReviewer
from tests.integration.providers.conftest import TOOLS, anthropic_gateway, openai_gateway
from tests.integration.providers.test_run_agent_loop import OneProvider
from tests.integration.providers.test_run_agent_loop import _tools as loop_tools
from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Fail, SseRaw, Turn

PRICES = {"input_per_mtok": 3.0, "output_per_mtok": 15.0, "cache_read_per_mtok": 0.3, "cache_write_per_mtok": 3.75}

ANTHROPIC_LOOP = [  # usage: Anthropic's input_tokens leave out the cache's reads and writes
    Turn(calls=(Call("t1", "read_file", {"path": "a.txt"}),), usage=(40, 9), cache=(0, 2100)),
    Turn(calls=(Call("t2", "read_file", {"path": "b.txt"}),), usage=(12, 8), cache=(2100, 90)),
    Turn(
        calls=(Call("t3", "list_dir", {}), Call("t4", "read_file", {"path": "c.txt"})), usage=(11, 7), cache=(2190, 60)
    ),
    Turn(text="Done: a, b and c read.", usage=(13, 20), cache=(2250, 80)),
]


def _agent(gateway: Any, prices: ProviderPrices | None = None) -> tuple[RunAgent, RecordingObserver]:
    """A run on ``gateway`` (a provider's, or an ``OneProvider`` router already) with the loop's fake tools."""
    observer = RecordingObserver()
    agent = RunAgent(
        gateway=gateway if isinstance(gateway, OneProvider) else OneProvider("local", gateway),
        executor=loop_tools(),
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=observer,
        prices=prices,
    )
    return agent, observer


def _breakpoints(body: dict[str, Any]) -> list[tuple[str, Any]]:
    """Every ``cache_control`` of a Messages request: (where, the marker)."""
    found: list[tuple[str, Any]] = []
    system = body.get("system")
    for block in system if isinstance(system, list) else ():
        if "cache_control" in block:
            found.append(("system", block["cache_control"]))
    for tool in body.get("tools", ()):
        if "cache_control" in tool:
            found.append((f"tool {tool['name']}", tool["cache_control"]))
    for index, message in enumerate(body["messages"]):
        content = message["content"]
        for number, block in enumerate(content if isinstance(content, list) else ()):
            if "cache_control" in block:
                found.append((f"messages[{index}][{number}]", block["cache_control"]))
    return found


def _last_block(body: dict[str, Any]) -> Any:
    content = body["messages"][-1]["content"]
    return content[-1] if isinstance(content, list) else content


def _cost(usage: Any) -> float:
    """The documented formula, written out: USD per million at ``PRICES``."""
    uncached = usage.input_tokens - usage.cache_read_input_tokens - usage.cache_write_input_tokens
    return (
        uncached * PRICES["input_per_mtok"]
        + usage.cache_read_input_tokens * PRICES["cache_read_per_mtok"]
        + usage.cache_write_input_tokens * PRICES["cache_write_per_mtok"]
        + usage.output_tokens * PRICES["output_per_mtok"]
    ) / 1e6


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "plain"])
async def test_an_anthropic_tool_loop_marks_every_request_and_prices_the_cache(
    stream: bool, ant_server: ScriptedHttpServer
) -> None:
    gateway = anthropic_gateway(ant_server)
    ant_server.enqueue(*ANTHROPIC_LOOP)
    instance = ProviderInstance("local", "anthropic", AnthropicSettings(prices=TokenPrices(**PRICES)))
    agent, observer = _agent(gateway, ProviderPrices({"local": instance}))

    result = await agent.execute(
        RunRequest(
            task="read a, b and c",
            model_id="local:claude-x",
            system_prompt="You are a careful agent.",
            params=ExecutionParams(stream=stream),
        )
    )

    await gateway.aclose()
    assert result.stop_reason == RunStopReason.END_TURN
    bodies = ant_server.bodies()
    assert len(bodies) == 4
    for number, body in enumerate(bodies):
        marks = _breakpoints(body)
        assert 1 <= len(marks) <= 4, (number, marks)
        assert all(marker == {"type": "ephemeral"} for _, marker in marks)
        assert marks[0][0] == "system"  # the stable prefix: tools, then the system prompt
        if number:
            assert _last_block(body)["cache_control"] == {"type": "ephemeral"}
    assert [m[0] for m in _breakpoints(bodies[3])] == ["system", "messages[4][0]", "messages[6][1]"]
    finished = observer.of("run_finished")[0]
    usage = finished.usage
    reads, writes = sum(t.cache[0] for t in ANTHROPIC_LOOP), sum(t.cache[1] for t in ANTHROPIC_LOOP)
    assert (usage.cache_read_input_tokens, usage.cache_write_input_tokens) == (reads, writes)
    assert usage.input_tokens == sum(t.usage[0] for t in ANTHROPIC_LOOP) + reads + writes
    assert usage.output_tokens == sum(t.usage[1] for t in ANTHROPIC_LOOP)
    assert finished.cost == pytest.approx(_cost(usage), abs=1e-9)
    assert result.cost == finished.cost


@pytest.mark.parametrize(("cap", "stop"), [(0.015, RunStopReason.END_TURN), (0.004, RunStopReason.MAX_COST)])
async def test_the_cost_cap_counts_cache_reads_and_writes_at_their_prices(cap: float, stop: RunStopReason) -> None:
    server = anthropic_server()  # not the fixture: a run stopped by the cap leaves replies unasked for
    gateway = anthropic_gateway(server)
    server.enqueue(*ANTHROPIC_LOOP)
    instance = ProviderInstance("local", "anthropic", AnthropicSettings(prices=TokenPrices(**PRICES)))
    agent, observer = _agent(gateway, ProviderPrices({"local": instance}))
    params = ExecutionParams(max_cost_usd=cap)

    try:
        result = await agent.execute(RunRequest(task="read a, b and c", model_id="local:claude-x", params=params))
    finally:
        await gateway.aclose()
        server.stop()

    finished = observer.of("run_finished")[0]
    all_input_as_input = (finished.usage.input_tokens * 3.0 + finished.usage.output_tokens * 15.0) / 1e6
    assert result.stop_reason == stop
    assert finished.cost == pytest.approx(_cost(finished.usage), abs=1e-9)
    if stop is RunStopReason.END_TURN:  # priced as plain input, the run would have passed the cap
        assert finished.cost < cap < all_input_as_input
    else:
        assert finished.stop.used == pytest.approx(finished.cost, abs=1e-9)


async def test_cache_off_sends_no_breakpoint(ant_server: ScriptedHttpServer) -> None:
    gateway = anthropic_gateway(ant_server, cache="off")
    ant_server.enqueue(*ANTHROPIC_LOOP)
    agent, _ = _agent(gateway)

    await agent.execute(RunRequest(task="read a, b and c", model_id="local:claude-x", system_prompt="Be careful."))

    await gateway.aclose()
    assert len(ant_server.bodies()) == 4
    assert all("cache_control" not in json.dumps(body) for body in ant_server.bodies())
    assert ant_server.bodies()[0]["system"] == "Be careful."


async def test_a_one_hour_cache_sends_its_ttl(ant_server: ScriptedHttpServer) -> None:
    gateway = anthropic_gateway(ant_server, cache_ttl="1h")
    ant_server.enqueue(*ANTHROPIC_LOOP[:2])
    session = gateway.session("claude-x", "Be careful.")
    await session.request(TurnInput.user("read a", TOOLS))

    await session.request(TurnInput.answering([_result("t1")], TOOLS))

    await gateway.aclose()
    for body in ant_server.bodies():
        assert {json.dumps(marker) for _, marker in _breakpoints(body)} == {'{"type": "ephemeral", "ttl": "1h"}'}


async def test_without_a_system_prompt_the_last_tool_ends_the_prefix(ant_server: ScriptedHttpServer) -> None:
    gateway = anthropic_gateway(ant_server)
    ant_server.enqueue(ANTHROPIC_LOOP[0])
    session = gateway.session("claude-x")

    await session.request(TurnInput.user("read a", TOOLS))

    await gateway.aclose()
    body = ant_server.bodies()[0]
    assert [where for where, _ in _breakpoints(body)] == ["tool list_dir"]
    assert body["messages"] == [{"role": "user", "content": "read a"}]  # one message: nothing to read next time


async def test_a_reviewer_request_caches_its_system_prompt(ant_server: ScriptedHttpServer) -> None:
    gateway = anthropic_gateway(ant_server)
    verdict = Call("v1", "submit_verdict", {"verdict": "approve", "reason": "needed for the task"})
    ant_server.enqueue(Turn(calls=(verdict,), usage=(30, 10), cache=(900, 0)))
    voter = ModelVoter(OneProvider("local", gateway), "local:claude-x")

    call = ToolCall(native_id="c1", name="run_command", arguments={"command": "ls"})
    context = ReviewContext(run_id="r1", task="list", tool=ToolDefinition(name="run_command"), risk=RiskLevel.HIGH)

    vote = await voter.vote(call, context)

    await gateway.aclose()
    body = ant_server.bodies()[0]
    assert [where for where, _ in _breakpoints(body)] == ["system"]
    assert body["system"][0]["text"].startswith("You are one member of a review panel")
    assert (vote.usage.cache_read_input_tokens, vote.usage.input_tokens) == (900, 930)


async def test_a_continued_history_marks_its_newest_message_on_the_first_request(
    ant_server: ScriptedHttpServer,
) -> None:
    gateway = anthropic_gateway(ant_server)
    ant_server.enqueue(Turn(text="Yes."))
    history = [Message.model_validate(m) for m in _HISTORY]
    session = gateway.session("claude-x", "Be careful.", history=history)

    await session.request(TurnInput.user("and now?"))

    await gateway.aclose()
    body = ant_server.bodies()[0]
    assert [where for where, _ in _breakpoints(body)] == ["system", "messages[2][0]", "messages[4][0]"]


OPENAI_LOOP = [  # usage: OpenAI's prompt_tokens count the cached ones
    Turn(calls=(Call("c1", "read_file", {"path": "a.txt"}),), usage=(1200, 9), cache=(0, 0)),
    Turn(calls=(Call("c2", "list_dir", {}),), usage=(1260, 8), cache=(1152, 0)),
    Turn(text="Read.", usage=(1300, 4), cache=(1280, 0)),
]


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "plain"])
async def test_openai_requests_of_a_run_and_its_continuation_share_one_cache_key(
    stream: bool, oai_server: ScriptedHttpServer
) -> None:
    gateway = openai_gateway(oai_server)
    oai_server.enqueue(*OPENAI_LOOP, Turn(text="Still read.", usage=(1400, 3), cache=(1280, 0)))
    instance = ProviderInstance("local", "openai", OpenAISettings(prices=TokenPrices(**PRICES)))
    prices = ProviderPrices({"local": instance})
    opened: list[Any] = []

    class Keeping(OneProvider):
        def session(self, model_id: str, system_prompt: str | None = None, *, history: Any = ()) -> Any:
            opened.append(super().session(model_id, system_prompt, history=history))
            return opened[-1]

    agent, observer = _agent(Keeping("local", gateway), prices)
    params = ExecutionParams(stream=stream)
    await agent.execute(RunRequest(task="read a", model_id="local:gpt-x", params=params))
    history = tuple(opened[0].history())

    await agent.execute(RunRequest(task="again?", model_id="local:gpt-x", history=history, params=params))

    await gateway.aclose()
    keys = [body.get("prompt_cache_key") for body in oai_server.bodies()]
    assert len(keys) == 4 and keys[0] and keys[0].startswith("quorum-")
    assert set(keys) == {keys[0]}, keys
    first = observer.of("run_finished")[0]
    assert (first.usage.input_tokens, first.usage.cache_read_input_tokens) == (3760, 2432)
    assert first.usage.cache_write_input_tokens == 0
    assert first.cost == pytest.approx(_cost(first.usage), abs=1e-9)


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "plain"])
async def test_the_responses_api_sends_the_cache_key_and_reports_cached_tokens(
    stream: bool, oai_server: ScriptedHttpServer
) -> None:
    gateway = openai_gateway(oai_server, api="responses")
    oai_server.enqueue(*OPENAI_LOOP)
    instance = ProviderInstance("local", "openai", OpenAISettings(api="responses", prices=TokenPrices(**PRICES)))
    agent, observer = _agent(gateway, ProviderPrices({"local": instance}))

    await agent.execute(RunRequest(task="read a", model_id="local:gpt-x", params=ExecutionParams(stream=stream)))

    await gateway.aclose()
    keys = [body.get("prompt_cache_key") for body in oai_server.bodies()]
    assert len(keys) == 3 and keys[0] and set(keys) == {keys[0]}
    finished = observer.of("run_finished")[0]
    assert (finished.usage.input_tokens, finished.usage.cache_read_input_tokens) == (3760, 2432)
    assert finished.cost == pytest.approx(_cost(finished.usage), abs=1e-9)


async def test_another_conversation_has_another_cache_key(oai_server: ScriptedHttpServer) -> None:
    gateway = openai_gateway(oai_server)
    oai_server.enqueue(Turn(text="a"), Turn(text="b"))

    await gateway.session("gpt-x").request(TurnInput.user("first task"))
    await gateway.session("gpt-x").request(TurnInput.user("second task"))

    await gateway.aclose()
    first, second = (body["prompt_cache_key"] for body in oai_server.bodies())
    assert first != second
    assert "task" not in first  # a digest, not the text


async def test_a_server_refusing_the_cache_key_says_to_turn_caching_off(oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(
        Fail(400, "Unrecognized request argument supplied: prompt_cache_key"), Turn(text="fine without it")
    )
    refused = openai_gateway(oai_server)
    with pytest.raises(ProviderError) as raised:
        await refused.session("gpt-x").request(TurnInput.user("hi"))
    await refused.aclose()
    served = openai_gateway(oai_server, cache="off")

    response = await served.session("gpt-x").request(TurnInput.user("hi"))

    await served.aclose()
    assert 'set cache = "off" in [providers.local]' in str(raised.value)
    assert raised.value.status_code == 400
    assert response.text_content() == "fine without it"
    assert "prompt_cache_key" not in oai_server.bodies()[1]


def _result(call_id: str) -> ToolResult:
    return ToolResult(call_id=call_id, name="read_file", output="contents")


_HISTORY: list[dict[str, Any]] = [
    {"role": "user", "content": [{"type": "text", "text": "read a"}]},
    {
        "role": "assistant",
        "content": [{"type": "tool_use", "native_id": "t1", "name": "read_file", "arguments": {"path": "a.txt"}}],
    },
    {"role": "user", "content": [{"type": "tool_result", "call_id": "t1", "name": "read_file", "output": "A"}]},
    {"role": "assistant", "content": [{"type": "text", "text": "A says hello."}]},
]


async def test_a_message_delta_carrying_input_counts_updates_the_cache_parts(ant_server: ScriptedHttpServer) -> None:
    start = {"id": "m", "type": "message", "role": "assistant", "model": "claude-x", "content": []}
    start["usage"] = {"input_tokens": 5, "output_tokens": 1, "cache_read_input_tokens": 0}
    cumulative = {
        "output_tokens": 3,
        "input_tokens": 5,
        "cache_read_input_tokens": 100,
        "cache_creation_input_tokens": 20,
    }
    events = [
        {"type": "message_start", "message": start},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": "hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": cumulative},
        {"type": "message_stop"},
    ]
    ant_server.enqueue(SseRaw(tuple(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)))
    gateway = anthropic_gateway(ant_server)

    stream = [event async for event in gateway.session("claude-x").request_stream(TurnInput.user("hi"))]

    await gateway.aclose()
    usage = stream[-1].response.usage
    assert (usage.input_tokens, usage.cache_read_input_tokens, usage.cache_write_input_tokens) == (125, 100, 20)
    assert usage.output_tokens == 3
