"""Hostile replies over the real SDKs: every one is a ProviderError saying what was wrong, never a crash.

Each case runs against both wire servers (OpenAI and Anthropic), through the plain or the
streamed path as the reply belongs to, with a short provider ``timeout`` so stalls end quickly.
"""

from __future__ import annotations

import gzip
import json
import threading
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import pytest

from quorum.application.ports.llm import TurnInput
from quorum.domain.errors import ProviderError
from tests.integration.providers.conftest import TOOLS, anthropic_gateway, collect, openai_gateway
from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Fail, Raw, SseRaw, Turn

TIMEOUT = 0.5


@dataclass
class Wire:
    kind: str
    server: ScriptedHttpServer
    gateway: Any
    release: threading.Event

    async def send(self) -> Any:
        return await self.gateway.session("m").request(TurnInput.user("hi", TOOLS))

    async def stream(self) -> list[Any]:
        return await collect(self.gateway.session("m").request_stream(TurnInput.user("hi", TOOLS)))

    def sse(self, *events: dict[str, Any]) -> list[str]:
        """``events`` as the frames of this wire (Anthropic names each event)."""
        if self.kind == "openai":
            return [f"data: {json.dumps(e)}\n\n" for e in events]
        return [f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events]

    def first_events(self) -> list[str]:
        """A valid start of a streamed text reply."""
        if self.kind == "openai":
            return self.sse({"choices": [{"index": 0, "delta": {"content": "Hel"}}]})
        return self.sse(
            {"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 1, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hel"}},
        )


@pytest.fixture(params=["openai", "anthropic"])
async def wire(request: pytest.FixtureRequest) -> AsyncIterator[Wire]:
    kind = request.param
    server = openai_server() if kind == "openai" else anthropic_server()
    make = openai_gateway if kind == "openai" else anthropic_gateway
    release = threading.Event()
    gateway = make(server, timeout=TIMEOUT)
    try:
        yield Wire(kind, server, gateway, release)
    finally:
        release.set()
        await gateway.aclose()
        server.stop()
    assert server.unexpected == 0 and server.remaining == 0


def _provider(wire: Wire) -> str:
    return "local" if wire.kind == "openai" else "claude"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        (Raw(200, b"<html><body>Welcome</body></html>", "text/html"), r"expected JSON, got text/html \(status 200\)"),
        (Raw(200, b"", "application/json"), r"expected JSON, got an empty body \(status 200\)"),
        (
            Raw(200, b'{"choices": [{"message": ', "application/json"),
            r"the body is not valid JSON \(.*\) \(status 200\)",
        ),
        (
            Raw(200, b'{"text": "caf\xe9"}', "application/json"),
            r"the body is not valid UTF-8 \(byte 0xe9 at offset 13\)",
        ),
        (Raw(200, b"[1, 2]", "application/json"), r"expected a JSON object, got an array"),
        (Raw(200, b"not gzip at all", headers={"Content-Encoding": "gzip"}), r"the body cannot be decoded as gzip: "),
        (Raw(200, b"{}", content_length=10**12), r"the body declares 1000000000000 bytes, more than the 16 MiB limit"),
    ],
    ids=["html-200", "empty-200", "truncated-json", "invalid-utf8", "json-array", "gzip-garbage", "huge-length"],
)
async def test_a_body_that_is_not_a_json_object_is_malformed(wire: Wire, reply: Raw, expected: str) -> None:
    wire.server.enqueue(reply)
    with pytest.raises(ProviderError, match=f"malformed response from provider '{_provider(wire)}': {expected}"):
        await wire.send()


async def test_a_mislabelled_json_body_is_still_read(wire: Wire) -> None:
    turn_body = (
        {"choices": [{"message": {"content": "fine"}, "finish_reason": "stop"}]}
        if wire.kind == "openai"
        else {"content": [{"type": "text", "text": "fine"}], "stop_reason": "end_turn"}
    )
    wire.server.enqueue(
        Raw(200, gzip.compress(json.dumps(turn_body).encode()), "text/plain", {"Content-Encoding": "gzip"})
    )
    assert (await wire.send()).text_content() == "fine"


OPENAI_SHAPES = [
    ({"choices": []}, r"the completion: choices: list should have at least 1 item"),
    ({"choices": None}, r"the completion: choices: input should be a valid list \(got null\)"),
    ({"choices": [{"message": None}]}, r"choices\[0\]\.message: .*\(got null\)"),
    (
        {"choices": [{"message": {"tool_calls": [{"id": 7, "function": {"name": "list_dir", "arguments": "{}"}}]}}]},
        r"choices\[0\]\.message\.tool_calls\[0\]\.id: input should be a valid string \(got a number\)",
    ),
    (
        {"choices": [{"message": {"tool_calls": [{"id": "c", "function": {"name": "list_dir", "arguments": [1]}}]}}]},
        r"tool_calls\[0\]\.function\.arguments: input should be a valid string \(got an array\)",
    ),
    (
        {
            "choices": [
                {
                    "message": {
                        "tool_calls": [
                            {"id": "dup", "function": {"name": "list_dir", "arguments": "{}"}},
                            {"id": "dup", "function": {"name": "list_dir", "arguments": "{}"}},
                        ]
                    }
                }
            ]
        },
        r"the tool call id 'dup' appears more than once",
    ),
]

ANTHROPIC_SHAPES = [
    ({"content": None}, r"the message: content: input should be a valid list \(got null\)"),
    ({"content": "hello"}, r"the message: content: input should be a valid list \(got a string\)"),
    (
        {"content": [{"type": "tool_use", "id": "t1", "name": "list_dir", "input": [1, 2]}]},
        r"content\[0\]: input: input should be a valid dictionary \(got an array\)",
    ),
    (
        {"content": [{"type": "tool_use", "id": None, "name": "list_dir", "input": {}}]},
        r"content\[0\]: id: input should be a valid string \(got null\)",
    ),
    ({"content": [{"type": "text", "text": 5}]}, r"content\[0\]: text: input should be a valid string"),
    (
        {
            "content": [
                {"type": "tool_use", "id": "dup", "name": "list_dir", "input": {}},
                {"type": "tool_use", "id": "dup", "name": "list_dir", "input": {}},
            ]
        },
        r"the tool call id 'dup' appears more than once",
    ),
]


@pytest.mark.parametrize(
    ("body", "expected"),
    OPENAI_SHAPES,
    ids=["no-choices", "null-choices", "null-message", "numeric-call-id", "array-arguments", "duplicate-ids"],
)
async def test_openai_json_of_the_wrong_shape_is_malformed(
    body: dict[str, Any], expected: str, oai_server: ScriptedHttpServer
) -> None:
    gateway = openai_gateway(oai_server)
    oai_server.enqueue(Raw(200, json.dumps(body).encode()))
    try:
        with pytest.raises(ProviderError, match=f"malformed response from provider 'local': .*{expected}"):
            await gateway.session("m").request(TurnInput.user("hi", TOOLS))
    finally:
        await gateway.aclose()


@pytest.mark.parametrize(
    ("body", "expected"),
    ANTHROPIC_SHAPES,
    ids=["null-content", "string-content", "array-input", "null-call-id", "numeric-text", "duplicate-ids"],
)
async def test_anthropic_json_of_the_wrong_shape_is_malformed(
    body: dict[str, Any], expected: str, ant_server: ScriptedHttpServer
) -> None:
    gateway = anthropic_gateway(ant_server)
    ant_server.enqueue(Raw(200, json.dumps(body).encode()))
    try:
        with pytest.raises(ProviderError, match=f"malformed response from provider 'claude': .*{expected}"):
            await gateway.session("m").request(TurnInput.user("hi", TOOLS))
    finally:
        await gateway.aclose()


async def test_an_error_object_with_status_200_is_the_servers_error(wire: Wire) -> None:
    body = {"type": "error", "error": {"type": "overloaded_error", "message": "try later"}}
    wire.server.enqueue(Raw(200, json.dumps(body).encode()))
    with pytest.raises(ProviderError, match=f"provider '{_provider(wire)}' returned an error: try later"):
        await wire.send()


async def test_an_html_error_page_keeps_the_status(wire: Wire) -> None:
    wire.server.enqueue(Raw(502, b"<html>Bad gateway</html>", "text/html"))
    with pytest.raises(ProviderError, match=r"failed with HTTP 502 after 0 retries") as caught:
        await wire.send()
    assert caught.value.status_code == 502


async def test_a_body_that_never_ends_is_cut_at_the_timeout(wire: Wire) -> None:
    wire.server.enqueue(Raw(200, b'{"choices": ', content_length=10_000, trickle=0.05, release=wire.release))
    with pytest.raises(ProviderError, match=r"stalled: the response body did not complete within 0\.5 s"):
        await wire.send()


async def test_a_body_shorter_than_its_length_stalls(wire: Wire) -> None:
    wire.server.enqueue(Raw(200, b'{"choices": ', content_length=500, release=wire.release))
    with pytest.raises(ProviderError, match=r"stalled: (no data|the response body did not complete) .*0\.5 s"):
        await wire.send()


@pytest.mark.parametrize(
    ("lines", "expected"),
    [
        (("data: {bad json\n\n",), r"malformed response from provider '{p}': a stream event is not valid JSON"),
        ((b'data: {"x": "\xff"}\n\n',), r"malformed response from provider '{p}': a stream line is not valid UTF-8"),
        (("data: [1, 2]\n\n",), r"malformed response from provider '{p}': a stream (chunk|event)"),
    ],
    ids=["bad-json", "invalid-utf8", "json-array"],
)
async def test_a_bad_stream_line_is_malformed(wire: Wire, lines: tuple[Any, ...], expected: str) -> None:
    wire.server.enqueue(SseRaw(lines))
    with pytest.raises(ProviderError, match=expected.replace("{p}", _provider(wire))):
        await wire.stream()


async def test_keepalives_alone_do_not_hold_the_stream_open(wire: Wire) -> None:
    wire.server.enqueue(SseRaw((": hello\n\n",), then="keepalive", keepalive=0.05, release=wire.release))
    with pytest.raises(ProviderError, match=r"stalled: no data for 0\.5 s"):
        await wire.stream()


async def test_keepalives_after_some_events_still_stall(wire: Wire) -> None:
    wire.server.enqueue(SseRaw(tuple(wire.first_events()), then="keepalive", keepalive=0.05, release=wire.release))
    with pytest.raises(ProviderError, match=r"stalled: no data for 0\.5 s"):
        await wire.stream()


async def test_a_silent_stall_mid_stream_ends_too(wire: Wire) -> None:
    wire.server.enqueue(SseRaw(tuple(wire.first_events()), then="hang", release=wire.release))
    with pytest.raises(ProviderError, match=r"stalled: no data for 0\.5 s"):
        await wire.stream()


async def test_a_stream_without_its_final_event_ended_early(wire: Wire) -> None:
    wire.server.enqueue(SseRaw(tuple(wire.first_events())))
    with pytest.raises(ProviderError, match=r"ended early"):
        await wire.stream()


async def test_a_reset_mid_stream_is_a_lost_connection(wire: Wire) -> None:
    wire.server.enqueue(SseRaw(tuple(wire.first_events()), then="drop"))
    with pytest.raises(ProviderError, match=r"lost mid-response"):
        await wire.stream()


async def test_an_error_event_is_the_servers_error(wire: Wire) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    frames = [*wire.first_events(), f"event: error\ndata: {json.dumps(error)}\n\n"]
    wire.server.enqueue(SseRaw(tuple(frames)))
    with pytest.raises(ProviderError, match=r"returned an error mid-response: Overloaded"):
        await wire.stream()


async def test_a_page_instead_of_a_stream_is_malformed(wire: Wire) -> None:
    wire.server.enqueue(Raw(200, b"<html>hi</html>", "text/html"))
    with pytest.raises(ProviderError, match=r"expected an event stream, got text/html \(status 200\)"):
        await wire.stream()


async def test_events_after_the_final_one_are_not_waited_for(wire: Wire) -> None:
    frames = [f"data: {json.dumps(c)}\n\n" for c in _openai_chunks()] + ["data: [DONE]\n\n"]
    if wire.kind == "anthropic":
        frames = [*wire.first_events(), *_anthropic_end(wire)]
    wire.server.enqueue(SseRaw(tuple(frames), then="hang", release=wire.release))
    events = await wire.stream()
    assert events[-1].response.text_content() == "Hel"


def _openai_chunks() -> list[dict[str, Any]]:
    return [
        {"choices": [{"index": 0, "delta": {"content": "Hel"}}]},
        {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]


def _anthropic_end(wire: Wire) -> list[str]:
    return wire.sse(
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 2}},
        {"type": "message_stop"},
    )


async def test_openai_stream_chunks_of_the_wrong_shape(oai_server: ScriptedHttpServer) -> None:
    gateway = openai_gateway(oai_server)
    call = {"index": 0, "id": 42, "function": {"name": "list_dir", "arguments": ""}}
    oai_server.enqueue(
        SseRaw(("data: " + json.dumps({"choices": None}) + "\n\n",)),
        SseRaw(("data: " + json.dumps({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]}) + "\n\n",)),
    )
    try:
        with pytest.raises(ProviderError, match=r"a stream chunk: choices: input should be a valid list \(got null\)"):
            await collect(gateway.session("m").request_stream(TurnInput.user("hi", TOOLS)))
        with pytest.raises(ProviderError, match=r"delta\.tool_calls\[0\]\.id: input should be a valid string"):
            await collect(gateway.session("m").request_stream(TurnInput.user("hi", TOOLS)))
    finally:
        await gateway.aclose()


async def test_duplicate_call_ids_in_a_stream_are_malformed(wire: Wire) -> None:
    turn = Turn(calls=(Call("dup", "list_dir", {}), Call("dup", "list_dir", {})))
    wire.server.enqueue(turn)
    with pytest.raises(ProviderError, match=r"the tool call id 'dup' appears more than once"):
        await wire.stream()


async def test_anthropic_tool_input_of_the_wrong_shape_in_a_stream(ant_server: ScriptedHttpServer) -> None:
    gateway = anthropic_gateway(ant_server)
    start = {
        "type": "content_block_start",
        "index": 0,
        "content_block": {"type": "tool_use", "id": "t", "name": "x", "input": [1]},
    }
    ant_server.enqueue(SseRaw((f"event: content_block_start\ndata: {json.dumps(start)}\n\n",)))
    try:
        with pytest.raises(ProviderError, match=r"content_block\[0\]: input: input should be a valid dictionary"):
            await collect(gateway.session("m").request_stream(TurnInput.user("hi", TOOLS)))
    finally:
        await gateway.aclose()


@pytest.mark.parametrize("wait", ["86400", "90"])
async def test_a_retry_after_over_the_limit_is_not_waited_for(wire: Wire, wait: str) -> None:
    gateway = (openai_gateway if wire.kind == "openai" else anthropic_gateway)(wire.server, max_retries=2)
    wire.server.enqueue(Fail(429, "quota", headers={"retry-after": wait}))
    try:
        with pytest.raises(
            ProviderError, match=rf"\(HTTP 429\) after 0 retries: Retry-After {wait} s exceeds the limit of 60 s: quota"
        ):
            await gateway.session("m").request(TurnInput.user("hi"))
    finally:
        await gateway.aclose()
    assert len(wire.server.requests) == 1


async def test_retries_made_are_counted_not_assumed(wire: Wire) -> None:
    gateway = (openai_gateway if wire.kind == "openai" else anthropic_gateway)(wire.server, max_retries=3)
    # the server says stop retrying after the second attempt: the message counts one retry, not three
    wire.server.enqueue(
        Fail(503, "busy", headers={"retry-after-ms": "5"}),
        Fail(503, "busy", headers={"x-should-retry": "false"}),
    )
    try:
        with pytest.raises(ProviderError, match=r"failed with HTTP 503 after 1 retries: busy"):
            await gateway.session("m").request(TurnInput.user("hi"))
    finally:
        await gateway.aclose()
