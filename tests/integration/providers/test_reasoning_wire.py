"""Reasoning over the real SDKs: ``thinking`` and ``reasoning_effort`` asked for, thinking blocks kept byte for byte.

Every request body is the one the scripted server received from the real ``anthropic`` / ``openai``
SDK. The thinking text and signature are chosen to break any re-encoding: non-ASCII, escapes,
line separators, trailing spaces, a signature with base64 padding and slashes.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

from quorum.application.ports.llm import TurnInput
from quorum.domain.errors import ProviderError
from quorum.domain.messages import Message
from quorum.domain.responses import ReasoningBlock, TextBlock
from quorum.domain.streaming import StreamCompleted, StreamReasoning, StreamTextDelta
from quorum.domain.tools import ToolCall, ToolResult
from tests.integration.providers.conftest import TOOLS, anthropic_gateway, collect, openai_gateway
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Thinking, Turn

THOUGHT = 'Let me think… "quotes" \\ back\\slash \u2028 line sep, tab\there, émoji 🧠, trailing  \n'
SIGNATURE = "EqQBCgIYAhIM1gbcDa9GJwZA2b3h/+Rk//==AbC+/=="
REDACTED = "EmwKAhgBEgy3va3pzix/LafPsn4aDFIT2Xlxh0L5L8rLVyIwxtE3rAFBa8cr3qpP/+z=="
READ = Call("toolu_1", "read_file", {"path": "a.txt"})
RESULT = ToolResult(call_id="toolu_1", name="read_file", output="contents")


async def _ask(session: Any, turn: TurnInput, stream: bool) -> Any:
    if not stream:
        return await session.request(turn)
    events = await collect(session.request_stream(turn))
    assert isinstance(events[-1], StreamCompleted)
    return events[-1].response


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_a_thinking_block_goes_back_unchanged_before_the_tool_use(
    ant, ant_server: ScriptedHttpServer, stream: bool
) -> None:
    ant_server.enqueue(Turn(thinking=(Thinking(THOUGHT, SIGNATURE),), calls=(READ,)), Turn(text="Done."))
    session = ant.session("claude-test")

    first = await _ask(session, TurnInput(text="inspect", tools=TOOLS, reasoning="high"), stream)
    await _ask(session, TurnInput(results=(RESULT,), tools=TOOLS, reasoning="high"), stream)

    kept = {"type": "thinking", "thinking": THOUGHT, "signature": SIGNATURE}
    assert first.content[0] == ReasoningBlock(api="anthropic", wire=kept, text=THOUGHT)
    assert first.text_content() == ""  # reasoning is not the answer
    assert ant_server.bodies()[1]["messages"][1] == {
        "role": "assistant",
        "content": [kept, {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.txt"}}],
    }


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
async def test_a_redacted_thinking_block_goes_back_unchanged(ant, ant_server: ScriptedHttpServer, stream: bool) -> None:
    thoughts = (Thinking(THOUGHT, SIGNATURE), Thinking(signature=REDACTED, redacted=True))
    ant_server.enqueue(Turn(thinking=thoughts, calls=(READ,)), Turn(text="Done."))
    session = ant.session("claude-test")

    await _ask(session, TurnInput(text="inspect", tools=TOOLS, reasoning="low"), stream)
    await _ask(session, TurnInput(results=(RESULT,), tools=TOOLS, reasoning="low"), stream)

    assert ant_server.bodies()[1]["messages"][1]["content"][:3] == [
        {"type": "thinking", "thinking": THOUGHT, "signature": SIGNATURE},
        {"type": "redacted_thinking", "data": REDACTED},
        {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.txt"}},
    ]


async def test_a_stream_announces_each_thinking_block_before_the_text(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Turn(thinking=(Thinking(THOUGHT, SIGNATURE),), text="Answer."))
    session = ant.session("claude-test")

    events = await collect(session.request_stream(TurnInput(text="hi", reasoning="medium")))

    kinds = [type(e) for e in events]
    assert kinds.index(StreamReasoning) < kinds.index(StreamTextDelta)
    announced = next(e for e in events if isinstance(e, StreamReasoning)).block
    assert announced.wire == {"type": "thinking", "thinking": THOUGHT, "signature": SIGNATURE}
    assert events[-1].response.text_content() == "Answer."


@pytest.mark.parametrize(("level", "budget"), [("low", 2048), ("medium", 8192), ("high", 16384)])
async def test_reasoning_sends_thinking_with_a_budget_below_max_tokens(
    ant, ant_server: ScriptedHttpServer, level: str, budget: int
) -> None:
    ant_server.enqueue(Turn(text="ok"))
    await ant.session("claude-test").request(TurnInput(text="hi", reasoning=level))  # type: ignore[arg-type]

    body = ant_server.bodies()[0]
    assert body["thinking"] == {"type": "enabled", "budget_tokens": budget}
    assert body["max_tokens"] == 8192 + budget > budget
    assert "output_config" not in body


async def test_a_model_taking_adaptive_thinking_gets_it_with_an_effort(ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Turn(text="ok"), Turn(text="ok"))
    gateway = anthropic_gateway(ant_server)
    forced = anthropic_gateway(ant_server, thinking="adaptive")
    try:
        await gateway.session("claude-opus-4-6").request(TurnInput(text="hi", reasoning="high"))
        await forced.session("my-proxy-model").request(TurnInput(text="hi", reasoning="low"))
    finally:
        await gateway.aclose()
        await forced.aclose()

    auto, chosen = ant_server.bodies()
    assert (auto["thinking"], auto["output_config"]) == ({"type": "adaptive"}, {"effort": "high"})
    assert (chosen["thinking"], chosen["output_config"]) == ({"type": "adaptive"}, {"effort": "low"})


async def test_reasoning_off_sends_no_thinking(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Turn(text="ok"))
    await ant.session("claude-opus-4-6").request(TurnInput(text="hi"))

    body = ant_server.bodies()[0]
    assert "thinking" not in body and "output_config" not in body and body["max_tokens"] == 8192


@pytest.mark.parametrize("level", ["low", "medium", "high"])
async def test_openai_chat_sends_reasoning_effort(oai, oai_server: ScriptedHttpServer, level: str) -> None:
    oai_server.enqueue(Turn(text="ok"))
    await oai.session("o4-mini").request(TurnInput(text="hi", reasoning=level))  # type: ignore[arg-type]

    assert oai_server.bodies()[0]["reasoning_effort"] == level


async def test_openai_chat_off_sends_no_reasoning_effort(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Turn(text="ok"))
    await oai.session("gpt-4.1").request(TurnInput(text="hi"))

    assert "reasoning_effort" not in oai_server.bodies()[0]


async def test_an_openai_compatible_provider_never_receives_anthropic_thinking(oai_server: ScriptedHttpServer) -> None:
    kept = ReasoningBlock(api="anthropic", wire={"type": "thinking", "thinking": THOUGHT, "signature": SIGNATURE})
    call = ToolCall(native_id="toolu_1", name="read_file", arguments={"path": "a.txt"})
    history = [
        Message(role="user", content=(TextBlock(text="inspect"),)),
        Message(role="assistant", content=(kept, call)),
        Message(role="user", content=(RESULT.for_model(),)),
        Message(role="assistant", content=(kept, TextBlock(text="Done."))),
    ]
    oai_server.enqueue(Turn(text="ok"))
    gateway = openai_gateway(oai_server, base_url=oai_server.url + "/v1")
    try:
        await gateway.session("local-model", history=history).request(TurnInput(text="more", tools=TOOLS))
    finally:
        await gateway.aclose()

    raw = json.dumps(oai_server.bodies()[0], ensure_ascii=False)
    assert SIGNATURE not in raw and "thinking" not in raw and "Let me think" not in raw
    assert oai_server.bodies()[0]["messages"][3] == {"role": "assistant", "content": "Done."}


async def test_a_thinking_block_of_the_wrong_shape_is_a_malformed_reply(ant, ant_server: ScriptedHttpServer) -> None:
    from tests.support.script import Raw

    body = b'{"model":"m","content":[{"type":"thinking","thinking":"x","signature":null}],"stop_reason":"end_turn"}'
    ant_server.enqueue(Raw(body=body))

    with pytest.raises(ProviderError, match="signature"):
        await ant.session("claude-test").request(TurnInput(text="hi", reasoning="low"))
