"""AnthropicMessagesSession driven through the real anthropic SDK over HTTP to a local Messages server."""

from __future__ import annotations

import json
import threading

import pytest

from quorum.application.ports.llm import TurnInput
from quorum.domain.errors import ProviderError
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, StopReason, TextBlock, Usage
from quorum.domain.streaming import StreamCompleted, StreamTextDelta, StreamToolCallDelta
from quorum.domain.tools import ToolCall, ToolResult
from tests.integration.providers.conftest import TOOLS, anthropic_gateway, collect
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Fail, Turn

TWO_CALLS = Turn(
    text="Looking.",
    calls=(Call("toolu_1", "read_file", {"path": "a.txt"}), Call("toolu_2", "list_dir", {})),
)


async def test_plain_text_request_and_response(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Turn(text="Hello there.", usage=(9, 3), model="claude-test-1"))
    session = ant.session("claude-test", "Be brief.")

    response = await session.request(TurnInput.user("hi"))

    request = ant_server.requests[0]
    assert request.path == "/v1/messages"
    assert request.headers["authorization"] == "Bearer sk-ant-test"
    assert "anthropic-version" in request.headers
    assert request.body == {
        "model": "claude-test",
        "max_tokens": 8192,
        "system": "Be brief.",
        "messages": [{"role": "user", "content": "hi"}],
    }
    assert response == LlmResponse(
        content=(TextBlock(text="Hello there."),),
        stop_reason=StopReason.end_turn(),
        model="claude-test-1",
        usage=Usage(input_tokens=9, output_tokens=3),
    )


async def test_several_tool_calls_then_results_with_is_error(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(TWO_CALLS, Turn(text="Done."))
    session = ant.session("claude-test")

    first = await session.request(TurnInput.user("inspect", TOOLS))
    results = [
        ToolResult(call_id="toolu_1", name="read_file", output="contents"),
        ToolResult(
            call_id="toolu_2",
            name="list_dir",
            output="Rejected by review",
            is_error=True,
            is_rejected=True,
        ),
    ]
    final = await session.request(TurnInput.answering(results, TOOLS, note="Keep going."))

    assert first.content == (
        TextBlock(text="Looking."),
        ToolCall(native_id="toolu_1", name="read_file", arguments={"path": "a.txt"}),
        ToolCall(native_id="toolu_2", name="list_dir", arguments={}),
    )
    assert first.stop_reason == StopReason.tool_use()
    assert ant_server.bodies()[0] == {
        "model": "claude-test",
        "max_tokens": 8192,
        "messages": [{"role": "user", "content": "inspect"}],
        "tools": TOOLS,
    }
    assert ant_server.bodies()[1]["messages"] == [
        {"role": "user", "content": "inspect"},
        {
            "role": "assistant",
            "content": [
                {"type": "text", "text": "Looking."},
                {"type": "tool_use", "id": "toolu_1", "name": "read_file", "input": {"path": "a.txt"}},
                {"type": "tool_use", "id": "toolu_2", "name": "list_dir", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "toolu_1", "content": "contents", "is_error": False},
                {
                    "type": "tool_result",
                    "tool_use_id": "toolu_2",
                    "content": "Rejected by review",
                    "is_error": True,
                },
                {"type": "text", "text": "Keep going."},
            ],
        },
    ]
    assert ant_server.bodies()[1]["tools"] == TOOLS
    assert final.text_content() == "Done."


async def test_tools_none_keeps_definitions_and_sets_tool_choice_none(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Turn(calls=(Call("toolu_1", "list_dir", {}),)), Turn(text="Summary."))
    session = ant.session("claude-test")
    await session.request(TurnInput.user("go", TOOLS))

    await session.request(TurnInput.answering([ToolResult(call_id="toolu_1", name="list_dir", output="x")], None))

    body = ant_server.bodies()[1]
    assert body["tool_choice"] == {"type": "none"}
    assert body["tools"] == TOOLS


async def test_max_tokens_and_stop_reasons_are_mapped(ant_server: ScriptedHttpServer) -> None:
    gateway = anthropic_gateway(ant_server, max_tokens=100)
    ant_server.enqueue(
        Turn(text="cut", stop="max_tokens"),
        Turn(text="x", stop="stop_sequence"),
        Turn(text="", stop="refusal"),
    )
    session = gateway.session("claude-test")

    stops = [(await session.request(TurnInput.user(t))).stop_reason for t in ("a", "b", "c")]

    await gateway.aclose()
    assert stops == [StopReason.max_tokens(), StopReason.end_turn(), StopReason.other("refusal")]
    assert {b["max_tokens"] for b in ant_server.bodies()} == {100}


async def test_history_from_another_provider_is_continued(ant, ant_server: ScriptedHttpServer) -> None:
    history = [
        Message(role="user", content=(TextBlock(text="list it"),)),
        Message(
            role="assistant",
            content=(
                ToolCall(native_id="call_9", name="list_dir", arguments={}),
                ToolCall(
                    native_id="call_10", name="read_file", arguments={}, arguments_error="bad json", raw_arguments="{"
                ),
            ),
        ),
        Message(
            role="user",
            content=(
                ToolResult(call_id="call_9", output="a b"),
                ToolResult(call_id="call_10", output="invalid arguments", is_error=True),
            ),
        ),
        Message(role="assistant", content=()),  # an empty reply: nothing to send for it
    ]
    ant_server.enqueue(Turn(text="Sure."))
    session = ant.session("claude-test", history=history)

    await session.request(TurnInput.user("and now?"))

    assert ant_server.bodies()[0]["messages"] == [
        {"role": "user", "content": "list it"},
        {
            "role": "assistant",
            "content": [
                {"type": "tool_use", "id": "call_9", "name": "list_dir", "input": {}},
                {"type": "tool_use", "id": "call_10", "name": "read_file", "input": {}},
            ],
        },
        {
            "role": "user",
            "content": [
                {"type": "tool_result", "tool_use_id": "call_9", "content": "a b", "is_error": False},
                {
                    "type": "tool_result",
                    "tool_use_id": "call_10",
                    "content": "invalid arguments",
                    "is_error": True,
                },
            ],
        },
        {"role": "user", "content": "and now?"},
    ]
    assert session.history()[:4] == history


# -- streaming ----------------------------------------------------------------------------------

STREAM_CASES = {
    "text": Turn(text="A fairly long answer, cut in pieces.", usage=(20, 9)),
    "tools": Turn(calls=(Call("toolu_1", "read_file", {"path": "dir/ä.txt"}), Call("toolu_2", "list_dir", {}))),
    "text_and_tools": TWO_CALLS,
    "max_tokens": Turn(text="cut sho", stop="max_tokens"),
    "empty": Turn(text=""),
}


@pytest.mark.parametrize("turn", STREAM_CASES.values(), ids=STREAM_CASES.keys())
async def test_streamed_response_equals_the_plain_one(ant, ant_server: ScriptedHttpServer, turn: Turn) -> None:
    ant_server.enqueue(turn, turn)
    plain = await ant.session("claude-test").request(TurnInput.user("go", TOOLS))
    streamed_session = ant.session("claude-test")

    events = await collect(streamed_session.request_stream(TurnInput.user("go", TOOLS)))

    assert isinstance(events[-1], StreamCompleted)
    assert events[-1].response == plain
    assert sum(isinstance(e, StreamCompleted) for e in events) == 1
    assert "".join(e.text for e in events if isinstance(e, StreamTextDelta)) == plain.text_content()
    for index, block in enumerate(b for b in plain.content if isinstance(b, ToolCall)):
        deltas = [e for e in events if isinstance(e, StreamToolCallDelta) and e.index == index]
        assert deltas[0].id == block.native_id and deltas[0].name == block.name
        assert json.loads("".join(d.arguments_delta for d in deltas)) == block.arguments
    assert streamed_session.history()[-1] == Message(role="assistant", content=plain.content)
    body = ant_server.bodies()[1]
    assert body.pop("stream") is True
    assert body == ant_server.bodies()[0]


async def test_malformed_streamed_arguments_become_a_flagged_call(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Turn(calls=(Call("toolu_1", "read_file", '{"path": "a'),)))

    events = await collect(ant.session("claude-test").request_stream(TurnInput.user("go", TOOLS)))

    (block,) = events[-1].response.content
    assert block == ToolCall(
        native_id="toolu_1",
        name="read_file",
        arguments={},
        arguments_error=block.arguments_error,
        raw_arguments='{"path": "a',
    )
    assert block.arguments_error is not None and "not valid JSON" in block.arguments_error


async def test_text_deltas_arrive_before_the_response_is_complete(ant, ant_server: ScriptedHttpServer) -> None:
    gate = threading.Event()
    ant_server.enqueue(Turn(text="first part, then the rest", gate=gate, gate_after=4))
    stream = ant.session("claude-test").request_stream(TurnInput.user("go"))

    first = await anext(stream)
    assert isinstance(first, StreamTextDelta)
    assert not gate.is_set()
    gate.set()
    rest = await collect(stream)
    assert rest[-1].response.text_content() == "first part, then the rest"


async def test_dropped_connection_mid_stream_is_a_provider_error(ant_server: ScriptedHttpServer) -> None:
    gateway = anthropic_gateway(ant_server, max_retries=2)
    ant_server.enqueue(Turn(text="this reply never ends properly", drop_after=5))
    session = gateway.session("claude-test")

    with pytest.raises(ProviderError, match="lost mid-response") as caught:
        await collect(session.request_stream(TurnInput.user("go")))

    await gateway.aclose()
    assert caught.value.provider == "claude" and caught.value.base_url == ant_server.url
    assert session.history() == [Message(role="user", content=(TextBlock(text="go"),))]
    assert len(ant_server.requests) == 1


async def test_stream_without_message_stop_is_a_provider_error(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Turn(text="abc", end_after=4))
    with pytest.raises(ProviderError, match="ended early: message_stop was not received"):
        await collect(ant.session("claude-test").request_stream(TurnInput.user("go")))


async def test_tool_results_join_history_before_a_request_fails(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Turn(calls=(Call("toolu_1", "list_dir", {}),)), Fail(400, "bad request"))
    session = ant.session("claude-test")
    await session.request(TurnInput.user("go", TOOLS))
    result = ToolResult(call_id="toolu_1", name="list_dir", output="x")

    with pytest.raises(ProviderError, match="HTTP 400"):
        await session.request(TurnInput.answering([result], TOOLS))

    assert session.history()[-1] == Message(role="user", content=(result.for_model(),))


async def test_error_event_inside_a_stream_is_a_provider_error(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Turn(text="some text first", error_after=4))
    with pytest.raises(ProviderError, match="returned an error mid-response: Overloaded") as caught:
        await collect(ant.session("claude-test").request_stream(TurnInput.user("go")))
    assert caught.value.status_code is None
