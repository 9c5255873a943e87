"""The Responses API (``api = "responses"``) through the real openai SDK to a local scripted server.

Every request body is checked: the history as ``input`` items, function calls answered by
``function_call_output`` items under the same ``call_id``, ``store: false``, the system prompt as
``instructions``; and a plain and a streamed reply give the same response.
"""

from __future__ import annotations

import base64

import pytest

from quorum.application.ports.llm import TurnInput
from quorum.domain.errors import ProviderError
from quorum.domain.messages import Message
from quorum.domain.responses import ReasoningBlock, StopReason, TextBlock, Usage
from quorum.domain.streaming import StreamCompleted, StreamReasoning, StreamTextDelta, StreamToolCallDelta
from quorum.domain.tools import ImagePart, ToolCall, ToolResult
from quorum.infrastructure.providers.openai import ResponsesApi
from tests.integration.providers.conftest import TOOLS, collect, openai_gateway
from tests.support.http_server import JsonReply, ScriptedHttpServer
from tests.support.script import Call, Fail, Thinking, Turn

WIRE_TOOLS = [
    {
        "type": "function",
        "name": "read_file",
        "description": "Read a file.",
        "parameters": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
        "strict": False,
    },
    {
        "type": "function",
        "name": "list_dir",
        "description": "List a directory.",
        "parameters": {"type": "object", "properties": {}},
        "strict": False,
    },
]

READ_A = Turn(text="Looking.", calls=(Call("call_a", "read_file", {"path": "a.txt"}),), usage=(30, 5))
LIST = Turn(calls=(Call("call_b", "list_dir", {}), Call("call_c", "read_file", {"path": "b.txt"})), usage=(50, 6))
DONE = Turn(text="Both files say hello.", usage=(70, 7), model="gpt-r-1")


async def three_turns(session, stream: bool) -> list:
    """A three-turn tool loop: read, list and read, answer. Returns the three responses."""

    async def ask(turn: TurnInput):
        if not stream:
            return await session.request(turn)
        events = await collect(session.request_stream(turn))
        assert isinstance(events[-1], StreamCompleted)
        return events[-1].response

    first = await ask(TurnInput.user("read the files", TOOLS))
    second = await ask(TurnInput.answering([ToolResult(call_id="call_a", name="read_file", output="hello")], TOOLS))
    results = [
        ToolResult(call_id="call_b", name="list_dir", output="a.txt b.txt"),
        ToolResult(call_id="call_c", name="read_file", output="no such file", is_error=True),
    ]
    third = await ask(TurnInput.answering(results, TOOLS))
    return [first, second, third]


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_a_three_turn_tool_loop_sends_items_answered_by_call_id(
    oai_server: ScriptedHttpServer, stream: bool
) -> None:
    oai_server.enqueue(READ_A, LIST, DONE)
    gateway = openai_gateway(oai_server, api="responses")
    session = gateway.session("gpt-r", "Be brief.")
    try:
        first, second, third = await three_turns(session, stream)
    finally:
        await gateway.aclose()

    assert [r.path for r in oai_server.requests] == ["/v1/responses"] * 3
    bodies = oai_server.bodies()
    for body in bodies:
        assert body["store"] is False and body["instructions"] == "Be brief." and body["tools"] == WIRE_TOOLS
        assert body["model"] == "gpt-r" and "messages" not in body
        assert body.get("stream", False) is stream
    assert bodies[2]["input"] == [
        {"role": "user", "content": "read the files"},
        {"role": "assistant", "content": "Looking."},
        {"type": "function_call", "call_id": "call_a", "name": "read_file", "arguments": '{"path": "a.txt"}'},
        {"type": "function_call_output", "call_id": "call_a", "output": "hello"},
        {"type": "function_call", "call_id": "call_b", "name": "list_dir", "arguments": "{}"},
        {"type": "function_call", "call_id": "call_c", "name": "read_file", "arguments": '{"path": "b.txt"}'},
        {"type": "function_call_output", "call_id": "call_b", "output": "a.txt b.txt"},
        {"type": "function_call_output", "call_id": "call_c", "output": "Error: no such file"},
    ]
    assert bodies[1]["input"] == bodies[2]["input"][:4]
    assert first.content == (
        TextBlock(text="Looking."),
        ToolCall(native_id="call_a", name="read_file", arguments={"path": "a.txt"}),
    )
    assert first.stop_reason == StopReason.tool_use() and first.usage == Usage(input_tokens=30, output_tokens=5)
    assert [b.native_id for b in second.content if isinstance(b, ToolCall)] == ["call_b", "call_c"]
    assert third.content == (TextBlock(text="Both files say hello."),)
    assert third.stop_reason == StopReason.end_turn() and third.model == "gpt-r-1"


async def test_the_stream_shows_text_and_call_deltas_as_they_come(oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(READ_A)
    gateway = openai_gateway(oai_server, api="responses")
    try:
        events = await collect(gateway.session("gpt-r").request_stream(TurnInput.user("go", TOOLS)))
    finally:
        await gateway.aclose()

    text = "".join(e.text for e in events if isinstance(e, StreamTextDelta))
    calls = [e for e in events if isinstance(e, StreamToolCallDelta)]
    assert text == "Looking."
    assert calls[0].id == "call_a" and calls[0].name == "read_file" and calls[0].index == 1
    assert "".join(c.arguments_delta for c in calls) == '{"path": "a.txt"}'


async def test_tools_off_and_the_output_cap_are_sent_as_the_api_names_them(oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(READ_A, Turn(text="cut", stop="length"))
    gateway = openai_gateway(oai_server, api="responses", max_tokens=64)
    session = gateway.session("gpt-r")
    try:
        await session.request(TurnInput.user("go", TOOLS))
        capped = await session.request(
            TurnInput.answering([ToolResult(call_id="call_a", name="read_file", output="x")], None)
        )
    finally:
        await gateway.aclose()

    body = oai_server.bodies()[1]
    assert body["tool_choice"] == "none" and body["tools"] == WIRE_TOOLS and body["max_output_tokens"] == 64
    assert "instructions" not in body
    assert capped.stop_reason == StopReason.max_tokens()


async def test_images_of_a_tool_result_travel_in_its_output(oai_server: ScriptedHttpServer) -> None:
    png = base64.b64encode(b"\x89PNG fake").decode()
    oai_server.enqueue(READ_A, DONE)
    gateway = openai_gateway(oai_server, api="responses")
    session = gateway.session("gpt-r")
    result = ToolResult(
        call_id="call_a",
        name="read_file",
        output="a picture",
        images=(ImagePart(media_type="image/png", data=png, size=9),),
    )
    try:
        await session.request(TurnInput.user("look", TOOLS))
        await session.request(TurnInput.answering([result], TOOLS))
    finally:
        await gateway.aclose()

    output = oai_server.bodies()[1]["input"][-1]
    assert output == {
        "type": "function_call_output",
        "call_id": "call_a",
        "output": [
            {"type": "input_text", "text": "a picture"},
            {"type": "input_image", "image_url": f"data:image/png;base64,{png}", "detail": "auto"},
        ],
    }


async def test_a_server_error_is_a_provider_error_naming_the_provider(oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Fail(400, "Unsupported parameter: 'store'"))
    gateway = openai_gateway(oai_server, api="responses")
    try:
        with pytest.raises(ProviderError) as caught:
            await gateway.session("gpt-r").request(TurnInput.user("go"))
    finally:
        await gateway.aclose()
    assert "Unsupported parameter: 'store'" in str(caught.value) and "'local'" in str(caught.value)


async def test_a_failed_response_and_a_stream_error_event_are_provider_errors(oai_server: ScriptedHttpServer) -> None:
    failed = {
        "id": "r",
        "model": "m",
        "status": "failed",
        "output": [],
        "error": {"code": "server_error", "message": "it broke"},
    }
    oai_server.enqueue(JsonReply(200, failed), Turn(text="partial answer", error_after=3))
    gateway = openai_gateway(oai_server, api="responses")
    try:
        with pytest.raises(ProviderError, match="it broke"):
            await gateway.session("gpt-r").request(TurnInput.user("go"))
        with pytest.raises(ProviderError, match="error mid-stream"):
            await collect(gateway.session("gpt-r").request_stream(TurnInput.user("go")))
    finally:
        await gateway.aclose()


async def test_a_stream_without_its_final_event_is_an_error(oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Turn(text="never finished", end_after=3))
    gateway = openai_gateway(oai_server, api="responses")
    try:
        with pytest.raises(ProviderError, match="ended early"):
            await collect(gateway.session("gpt-r").request_stream(TurnInput.user("go")))
    finally:
        await gateway.aclose()


def test_the_setting_chooses_the_wire_api(oai_server: ScriptedHttpServer) -> None:
    assert isinstance(openai_gateway(oai_server, api="responses")._wire_api, ResponsesApi)
    assert not isinstance(openai_gateway(oai_server)._wire_api, ResponsesApi)


THOUGHT = Thinking(text="The file may be long; read it first.", signature="gAAAAB-encrypted-1==")
SILENT = Thinking(signature="gAAAAB-encrypted-2==")


@pytest.mark.parametrize("stream", [False, True], ids=["plain", "streamed"])
async def test_reasoning_items_go_back_unchanged_and_the_request_asks_for_them(
    oai_server: ScriptedHttpServer, stream: bool
) -> None:
    reasoned = Turn(thinking=(THOUGHT, SILENT), calls=(Call("call_a", "read_file", {"path": "a.txt"}),))
    oai_server.enqueue(reasoned, Turn(thinking=(SILENT,), text="It says hello."))
    gateway = openai_gateway(oai_server, api="responses")
    session = gateway.session("o-r")
    try:
        first = await _ask(session, TurnInput(text="read a.txt", tools=TOOLS, reasoning="high"), stream)
        await _ask(
            session,
            TurnInput(
                results=(ToolResult(call_id="call_a", name="read_file", output="hello"),), tools=TOOLS, reasoning="high"
            ),
            stream,
        )
    finally:
        await gateway.aclose()

    bodies = oai_server.bodies()
    for body in bodies:
        assert body["reasoning"] == {"effort": "high"} and body["include"] == ["reasoning.encrypted_content"]
        assert body["store"] is False
    sent = bodies[1]["input"]
    assert sent[1] == {
        "type": "reasoning",
        "id": "rs_0",
        "summary": [{"type": "summary_text", "text": THOUGHT.text}],
        "encrypted_content": THOUGHT.signature,
    }
    assert sent[2] == {"type": "reasoning", "id": "rs_1", "summary": [], "encrypted_content": SILENT.signature}
    assert sent[3]["type"] == "function_call" and sent[4]["type"] == "function_call_output"
    kept = [b for b in first.content if isinstance(b, ReasoningBlock)]
    assert [b.text for b in kept] == [THOUGHT.text, ""] and all(b.api == "openai-responses" for b in kept)


async def test_reasoning_off_asks_for_none(oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Turn(text="hi"))
    gateway = openai_gateway(oai_server, api="responses")
    try:
        await gateway.session("o-r").request(TurnInput.user("hi"))
    finally:
        await gateway.aclose()
    assert "reasoning" not in oai_server.bodies()[0] and "include" not in oai_server.bodies()[0]


async def test_another_apis_reasoning_is_not_sent_to_the_responses_api(oai_server: ScriptedHttpServer) -> None:
    thinking = ReasoningBlock(api="anthropic", wire={"type": "thinking", "thinking": "x", "signature": "s"}, text="x")
    history = [
        Message(role="user", content=(TextBlock(text="go"),)),
        Message(role="assistant", content=(thinking, TextBlock(text="done"))),
    ]
    oai_server.enqueue(Turn(text="ok"))
    gateway = openai_gateway(oai_server, api="responses")
    try:
        await gateway.session("o-r", history=history).request(TurnInput.user("again"))
    finally:
        await gateway.aclose()
    assert oai_server.bodies()[0]["input"] == [
        {"role": "user", "content": "go"},
        {"role": "assistant", "content": "done"},
        {"role": "user", "content": "again"},
    ]


async def _ask(session, turn: TurnInput, stream: bool):
    if not stream:
        return await session.request(turn)
    events = await collect(session.request_stream(turn))
    assert isinstance(events[-1], StreamCompleted)
    reasoning = [e.block for e in events if isinstance(e, StreamReasoning)]
    assert reasoning == [b for b in events[-1].response.content if isinstance(b, ReasoningBlock)]
    return events[-1].response
