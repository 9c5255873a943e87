"""OpenAIChatSession driven through the real openai SDK over HTTP to a local Chat Completions server."""

from __future__ import annotations

import threading

import pytest

from quorum.application.ports.llm import TurnInput
from quorum.domain.errors import ProviderError
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, StopReason, TextBlock, Usage
from quorum.domain.streaming import StreamCompleted, StreamTextDelta, StreamToolCallDelta
from quorum.domain.tools import ToolCall, ToolResult
from tests.integration.providers.conftest import TOOLS, collect, openai_gateway
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Fail, Turn

WIRE_TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "read_file",
            "description": "Read a file.",
            "parameters": {
                "type": "object",
                "properties": {"path": {"type": "string"}},
                "required": ["path"],
            },
        },
    },
    {
        "type": "function",
        "function": {
            "name": "list_dir",
            "description": "List a directory.",
            "parameters": {"type": "object", "properties": {}},
        },
    },
]

TWO_CALLS = Turn(
    text="Looking.",
    calls=(Call("call_1", "read_file", {"path": "a.txt"}), Call("call_2", "list_dir", {})),
)


async def test_plain_text_request_and_response(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Turn(text="Hello there.", usage=(9, 3), model="gpt-test-1"))
    session = oai.session("gpt-test", "Be brief.")

    response = await session.request(TurnInput.user("hi"))

    assert oai_server.requests[0].path == "/v1/chat/completions"
    assert oai_server.requests[0].headers["authorization"] == "Bearer sk-test"
    assert oai_server.bodies()[0] == {
        "model": "gpt-test",
        "messages": [{"role": "system", "content": "Be brief."}, {"role": "user", "content": "hi"}],
    }
    assert response == LlmResponse(
        content=(TextBlock(text="Hello there."),),
        stop_reason=StopReason.end_turn(),
        model="gpt-test-1",
        usage=Usage(input_tokens=9, output_tokens=3),
    )
    assert session.history() == [
        Message(role="user", content=(TextBlock(text="hi"),)),
        Message(role="assistant", content=(TextBlock(text="Hello there."),)),
    ]


async def test_several_tool_calls_then_results_round_trip_ids(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(TWO_CALLS, Turn(text="Done."))
    session = oai.session("gpt-test")

    first = await session.request(TurnInput.user("inspect", TOOLS))
    results = [
        ToolResult(call_id="call_1", name="read_file", output="contents"),
        ToolResult(call_id="call_2", name="list_dir", output="denied", is_error=True),
    ]
    final = await session.request(TurnInput.answering(results, TOOLS, note="Keep going."))

    assert first.content == (
        TextBlock(text="Looking."),
        ToolCall(native_id="call_1", name="read_file", arguments={"path": "a.txt"}),
        ToolCall(native_id="call_2", name="list_dir", arguments={}),
    )
    assert first.stop_reason == StopReason.tool_use()
    assert [c.native_id for c in first.tool_calls()] == ["call_1", "call_2"]
    assert oai_server.bodies()[0] == {
        "model": "gpt-test",
        "messages": [{"role": "user", "content": "inspect"}],
        "tools": WIRE_TOOLS,
    }
    assert oai_server.bodies()[1] == {
        "model": "gpt-test",
        "messages": [
            {"role": "user", "content": "inspect"},
            {
                "role": "assistant",
                "content": "Looking.",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "read_file", "arguments": '{"path": "a.txt"}'},
                    },
                    {"id": "call_2", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}},
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": "contents"},
            {"role": "tool", "tool_call_id": "call_2", "content": "Error: denied"},
            {"role": "user", "content": "Keep going."},
        ],
        "tools": WIRE_TOOLS,
    }
    assert final.text_content() == "Done."
    assert len(session.history()) == 4


async def test_tools_none_keeps_definitions_and_switches_tool_use_off(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Turn(calls=(Call("call_1", "list_dir", {}),)), Turn(text="Summary."))
    session = oai.session("gpt-test")
    await session.request(TurnInput.user("go", TOOLS))

    await session.request(
        TurnInput.answering([ToolResult(call_id="call_1", name="list_dir", output="x")], None, note="Answer now.")
    )

    body = oai_server.bodies()[1]
    assert body["tool_choice"] == "none"
    assert body["tools"] == WIRE_TOOLS
    assert body["messages"][1] == {
        "role": "assistant",
        "content": None,
        "tool_calls": [{"id": "call_1", "type": "function", "function": {"name": "list_dir", "arguments": "{}"}}],
    }


async def test_malformed_arguments_become_a_flagged_call_and_go_back_verbatim(
    oai, oai_server: ScriptedHttpServer
) -> None:
    oai_server.enqueue(
        Turn(calls=(Call("call_1", "read_file", '{"path": "a.txt"'), Call("call_2", "read_file", "[1]"))),
        Turn(text="ok"),
    )
    session = oai.session("gpt-test")

    response = await session.request(TurnInput.user("go", TOOLS))

    broken, not_object = response.content
    assert isinstance(broken, ToolCall) and isinstance(not_object, ToolCall)
    assert broken.arguments == {} and broken.raw_arguments == '{"path": "a.txt"'
    assert broken.arguments_error is not None and "not valid JSON" in broken.arguments_error
    assert not_object.arguments == {} and not_object.raw_arguments == "[1]"
    assert not_object.arguments_error == "the arguments must be a JSON object, got list"
    call = response.tool_calls()[0]
    assert call.arguments_error == broken.arguments_error and call.raw_arguments == '{"path": "a.txt"'

    results = [
        ToolResult(call_id=i, name="read_file", output="bad arguments", is_error=True) for i in ("call_1", "call_2")
    ]
    await session.request(TurnInput.answering(results, TOOLS))
    sent_calls = oai_server.bodies()[1]["messages"][1]["tool_calls"]
    assert [c["function"]["arguments"] for c in sent_calls] == ['{"path": "a.txt"', "[1]"]


async def test_history_from_another_provider_is_continued(oai, oai_server: ScriptedHttpServer) -> None:
    history = [
        Message(role="user", content=(TextBlock(text="list it"),)),
        Message(
            role="assistant",
            content=(TextBlock(text=""), ToolCall(native_id="toolu_9", name="list_dir", arguments={"deep": True})),
        ),
        Message(
            role="user",
            content=(ToolResult(call_id="toolu_9", name="list_dir", output="a b", is_error=False),),
        ),
        Message(role="assistant", content=(TextBlock(text="Two files."),)),
    ]
    oai_server.enqueue(Turn(text="Sure."))
    session = oai.session("gpt-test", "sys", history=history)

    await session.request(TurnInput.user("and now?"))

    assert oai_server.bodies()[0]["messages"] == [
        {"role": "system", "content": "sys"},
        {"role": "user", "content": "list it"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "toolu_9",
                    "type": "function",
                    "function": {"name": "list_dir", "arguments": '{"deep": true}'},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "toolu_9", "content": "a b"},
        {"role": "assistant", "content": "Two files."},
        {"role": "user", "content": "and now?"},
    ]
    assert session.history()[:4] == history


def test_record_joins_history_without_a_request(oai, oai_server: ScriptedHttpServer) -> None:
    session = oai.session("gpt-test")
    session.record([ToolResult(call_id="c", name="t", output="not executed")])
    assert session.history() == [
        Message(role="user", content=(ToolResult(call_id="c", name="t", output="not executed"),))
    ]
    assert oai_server.requests == []


# -- streaming ----------------------------------------------------------------------------------

STREAM_CASES = {
    "text": Turn(text="A fairly long answer, cut in pieces.", usage=(20, 9)),
    "tools": Turn(calls=(Call("call_1", "read_file", {"path": "dir/ä.txt"}), Call("call_2", "list_dir", {}))),
    "text_and_tools": TWO_CALLS,
    "malformed": Turn(calls=(Call("call_1", "read_file", '{"path": '),)),
    "length": Turn(text="cut sho", stop="length"),
    "content_filter": Turn(text="", stop="content_filter"),
}


@pytest.mark.parametrize("turn", STREAM_CASES.values(), ids=STREAM_CASES.keys())
async def test_streamed_response_equals_the_plain_one(oai, oai_server: ScriptedHttpServer, turn: Turn) -> None:
    oai_server.enqueue(turn, turn)
    plain = await oai.session("gpt-test").request(TurnInput.user("go", TOOLS))
    streamed_session = oai.session("gpt-test")

    events = await collect(streamed_session.request_stream(TurnInput.user("go", TOOLS)))

    assert isinstance(events[-1], StreamCompleted)
    assert events[-1].response == plain
    assert sum(isinstance(e, StreamCompleted) for e in events) == 1
    texts = "".join(e.text for e in events if isinstance(e, StreamTextDelta))
    assert texts == plain.text_content()
    if turn.text:
        assert sum(isinstance(e, StreamTextDelta) for e in events) > 1  # pieces, not one blob
    for index, block in enumerate(b for b in plain.content if isinstance(b, ToolCall)):
        deltas = [e for e in events if isinstance(e, StreamToolCallDelta) and e.index == index]
        assert deltas[0].id == block.native_id and deltas[0].name == block.name
        assert "".join(d.arguments_delta for d in deltas) == (block.raw_arguments or _dumps(block.arguments))
    assert streamed_session.history()[-1] == Message(role="assistant", content=plain.content)
    body = oai_server.bodies()[1]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True}
    assert {k: v for k, v in body.items() if k not in ("stream", "stream_options")} == oai_server.bodies()[0]


def _dumps(value: object) -> str:
    import json

    return json.dumps(value)


async def test_text_deltas_arrive_before_the_response_is_complete(oai, oai_server: ScriptedHttpServer) -> None:
    gate = threading.Event()
    oai_server.enqueue(Turn(text="first part, then the rest", gate=gate, gate_after=3))
    stream = oai.session("gpt-test").request_stream(TurnInput.user("go"))

    first = await anext(stream)
    assert isinstance(first, StreamTextDelta)
    assert not gate.is_set()  # the server is still holding back the rest of the reply
    gate.set()
    rest = await collect(stream)
    assert isinstance(rest[-1], StreamCompleted)
    assert rest[-1].response.text_content() == "first part, then the rest"


async def test_tool_results_join_history_before_a_streamed_request_fails(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Turn(calls=(Call("call_1", "list_dir", {}),)), Fail(400, "bad request"))
    session = oai.session("gpt-test")
    await session.request(TurnInput.user("go", TOOLS))
    result = ToolResult(call_id="call_1", name="list_dir", output="x")

    with pytest.raises(ProviderError, match="HTTP 400"):
        await collect(session.request_stream(TurnInput.answering([result], TOOLS)))

    assert session.history()[-1] == Message(role="user", content=(result.for_model(),))


async def test_dropped_connection_mid_stream_is_a_provider_error(oai_server: ScriptedHttpServer) -> None:
    gateway = openai_gateway(oai_server, max_retries=2)  # a consumed stream is never retried
    oai_server.enqueue(Turn(text="this reply never ends properly", drop_after=4))
    session = gateway.session("gpt-test")
    events: list[object] = []

    with pytest.raises(ProviderError) as caught:
        async for event in session.request_stream(TurnInput.user("go")):
            events.append(event)

    await gateway.aclose()
    assert "lost mid-response" in str(caught.value)
    assert caught.value.base_url == oai_server.url + "/v1"
    assert caught.value.provider == "local" and caught.value.model == "gpt-test"
    assert events and all(isinstance(e, StreamTextDelta) for e in events)
    assert session.history() == [Message(role="user", content=(TextBlock(text="go"),))]
    assert len(oai_server.requests) == 1


async def test_stream_ending_without_finish_reason_is_a_provider_error(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Turn(text="abc", end_after=2))  # a clean end of the body after two text chunks

    with pytest.raises(ProviderError, match="ended early: no finish_reason"):
        await collect(oai.session("gpt-test").request_stream(TurnInput.user("go")))


async def test_error_event_inside_a_stream_is_a_provider_error(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Turn(text="some text first", error_after=3))
    with pytest.raises(ProviderError, match="returned an error mid-response: the server had an error mid-stream"):
        await collect(oai.session("gpt-test").request_stream(TurnInput.user("go")))
