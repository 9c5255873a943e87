"""Fault suite: hostile provider replies end the run with one clear error line, never a crash or a hang.

``quorum run --json`` talks to a local OpenAI or Anthropic wire server (``[providers.local]``,
``timeout = 2``, no retries) that answers with something broken. Every case must exit 1 with
``run_finished`` last (``stop_reason`` ``error``), a one-line detail naming what was wrong, that
same line once on stderr, no traceback, within the timeout plus the harness's margin.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from dataclasses import dataclass

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.faults.harness import run_fault
from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Fail, Raw, ScriptItem, SseRaw, Turn

TIMEOUT = 2


@dataclass
class Wire:
    kind: str
    server: ScriptedHttpServer
    release: threading.Event

    def frames(self, *events: dict[str, object]) -> tuple[str, ...]:
        if self.kind == "openai":
            return tuple(f"data: {json.dumps(e)}\n\n" for e in events)
        return tuple(f"event: {e['type']}\ndata: {json.dumps(e)}\n\n" for e in events)

    def opening(self) -> tuple[str, ...]:
        """A valid start of a streamed text reply: some text, no end."""
        if self.kind == "openai":
            return self.frames({"choices": [{"index": 0, "delta": {"content": "Partial"}}]})
        return self.frames(
            {"type": "message_start", "message": {"model": "m", "usage": {"input_tokens": 1, "output_tokens": 1}}},
            {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
            {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Partial"}},
        )

    def tool_call_with_array_arguments(self) -> tuple[str, ...]:
        if self.kind == "openai":
            call = {"index": 0, "id": "c1", "function": {"name": "list_dir", "arguments": [1, 2]}}
            return self.frames({"choices": [{"index": 0, "delta": {"tool_calls": [call]}}]})
        block = {"type": "tool_use", "id": "c1", "name": "list_dir", "input": [1, 2]}
        return self.frames({"type": "content_block_start", "index": 0, "content_block": block})


@pytest.fixture(params=["openai", "anthropic"])
def wire(request: pytest.FixtureRequest) -> Iterator[Wire]:
    server = openai_server() if request.param == "openai" else anthropic_server()
    release = threading.Event()
    try:
        yield Wire(request.param, server, release)
    finally:
        release.set()  # frees server threads still trickling, hanging or sending keepalives
        server.stop()


def _run(cli: Cli, wire: Wire, reply: ScriptItem, *, stream: bool, expected: str, retries: int = 0) -> str:
    """Configure the provider, serve ``reply``, run, check the error line; return the detail."""
    base_url = wire.server.url + "/v1" if wire.kind == "openai" else wire.server.url
    cli.write(
        "quorum.toml",
        f"[agent]\nstream = {'true' if stream else 'false'}\n\n"
        f'[providers.local]\ntype = "{wire.kind}"\nbase_url = "{base_url}"\napi_key = "x"\n'
        f"max_retries = {retries}\ntimeout = {TIMEOUT}\n",
    )
    wire.server.enqueue(reply)
    result = run_fault(cli, "run", "--json", "--model", "local:m", "hi", expect_code=1, timeout=TIMEOUT)
    finished = result.events()[-1]
    assert finished["stop_reason"] == "error", finished
    detail = finished["detail"]
    assert "\n" not in detail and expected in detail, detail
    errors = [line for line in result.stderr.splitlines() if line.startswith("quorum: error:")]
    assert errors == [f"quorum: error: {detail}"], result.stderr
    assert wire.server.unexpected == 0
    return detail


# -- the cases observed in the issue -----------------------------------------------------------


def test_an_html_page_with_status_200(cli: Cli, wire: Wire) -> None:
    page = Raw(200, b"<!doctype html><title>Login</title>", "text/html; charset=utf-8")
    _run(
        cli, wire, page, stream=False, expected="malformed response from provider 'local': expected JSON, got text/html"
    )


def test_a_body_that_is_not_json(cli: Cli, wire: Wire) -> None:
    _run(cli, wire, Raw(200, b"OK", "text/plain"), stream=False, expected="expected JSON, got text/plain (status 200)")


def test_a_stream_line_of_bad_json(cli: Cli, wire: Wire) -> None:
    reply = SseRaw(("data: {bad json\n\n",))
    _run(
        cli,
        wire,
        reply,
        stream=True,
        expected="malformed response from provider 'local': a stream event is not valid JSON",
    )


def test_invalid_utf8_in_a_body(cli: Cli, wire: Wire) -> None:
    reply = Raw(200, b'{"model": "\xc3\x28"}')
    _run(cli, wire, reply, stream=False, expected="the body is not valid UTF-8 (byte 0xc3 at offset 11)")


def test_invalid_utf8_in_a_stream(cli: Cli, wire: Wire) -> None:
    reply = SseRaw((*wire.opening(), b"data: \xff\xfe\n\n"))
    _run(cli, wire, reply, stream=True, expected="a stream line is not valid UTF-8 (byte 0xff at offset 6)")


def test_a_huge_retry_after_is_not_slept_on(cli: Cli, wire: Wire) -> None:
    reply = Fail(429, "daily quota used", headers={"retry-after": "86400"})
    detail = _run(
        cli, wire, reply, stream=False, expected="after 0 retries: Retry-After 86400 s exceeds the limit", retries=2
    )
    assert "daily quota used" in detail
    assert len(wire.server.requests) == 1


def test_keepalive_comments_do_not_hold_the_run(cli: Cli, wire: Wire) -> None:
    reply = SseRaw((": connected\n\n",), then="keepalive", keepalive=0.2, release=wire.release)
    _run(cli, wire, reply, stream=True, expected=f"stalled: no data for {TIMEOUT} s")


# -- more hostile replies -----------------------------------------------------------------------


def test_a_200_with_an_empty_body(cli: Cli, wire: Wire) -> None:
    _run(cli, wire, Raw(200, b""), stream=False, expected="expected JSON, got an empty body (status 200)")


def test_truncated_json(cli: Cli, wire: Wire) -> None:
    _run(cli, wire, Raw(200, b'{"id": "x", "choices": [{"mess'), stream=False, expected="the body is not valid JSON")


def test_a_body_that_never_ends(cli: Cli, wire: Wire) -> None:
    slowloris = Raw(200, b"{", content_length=1_000_000, trickle=0.2, release=wire.release)
    _run(cli, wire, slowloris, stream=False, expected=f"the response body did not complete within {TIMEOUT} s")


def test_a_content_length_that_never_arrives(cli: Cli, wire: Wire) -> None:
    reply = Raw(200, b'{"choices"', content_length=10_000_000, release=wire.release)
    _run(cli, wire, reply, stream=False, expected="stalled:")


def test_an_absurd_content_length_is_refused_at_once(cli: Cli, wire: Wire) -> None:
    reply = Raw(200, b"{}", content_length=10**15, release=wire.release)
    _run(
        cli, wire, reply, stream=False, expected="the body declares 1000000000000000 bytes, more than the 16 MiB limit"
    )


def test_gzip_garbage(cli: Cli, wire: Wire) -> None:
    reply = Raw(200, b"garbage that is not gzip", headers={"Content-Encoding": "gzip"})
    _run(cli, wire, reply, stream=False, expected="the body cannot be decoded as gzip")


def test_json_of_the_wrong_shape(cli: Cli, wire: Wire) -> None:
    body, expected = (
        ({"choices": []}, "the completion: choices: list should have at least 1 item")
        if wire.kind == "openai"
        else ({"content": None}, "the message: content: input should be a valid list (got null)")
    )
    _run(cli, wire, Raw(200, json.dumps(body).encode()), stream=False, expected=expected)


def test_an_error_object_with_status_200(cli: Cli, wire: Wire) -> None:
    body = {"error": {"message": "model is loading", "type": "server_error"}}
    _run(cli, wire, Raw(200, json.dumps(body).encode()), stream=False, expected="returned an error: model is loading")


def test_a_connection_reset_mid_stream(cli: Cli, wire: Wire) -> None:
    _run(cli, wire, SseRaw(wire.opening(), then="drop"), stream=True, expected="lost mid-response")


def test_a_stall_mid_stream(cli: Cli, wire: Wire) -> None:
    reply = SseRaw(wire.opening(), then="hang", release=wire.release)
    _run(cli, wire, reply, stream=True, expected=f"stalled: no data for {TIMEOUT} s")


def test_a_stream_ending_without_its_final_event(cli: Cli, wire: Wire) -> None:
    _run(cli, wire, SseRaw(wire.opening()), stream=True, expected="ended early")


def test_a_stream_with_an_error_event(cli: Cli, wire: Wire) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    reply = SseRaw((*wire.opening(), f"event: error\ndata: {json.dumps(error)}\n\n"))
    _run(cli, wire, reply, stream=True, expected="returned an error mid-response: Overloaded")


@pytest.mark.parametrize("stream", [True, False], ids=["stream", "plain"])
def test_duplicate_tool_call_ids(cli: Cli, wire: Wire, stream: bool) -> None:
    turn = Turn(calls=(Call("same", "list_dir", {}), Call("same", "list_dir", {})))
    _run(cli, wire, turn, stream=stream, expected="the tool call id 'same' appears more than once")


def test_tool_arguments_that_are_a_json_array(cli: Cli, wire: Wire) -> None:
    expected = "input should be a valid string (got an array)" if wire.kind == "openai" else "(got an array)"
    _run(cli, wire, SseRaw(wire.tool_call_with_array_arguments()), stream=True, expected=expected)


def test_an_html_page_instead_of_a_stream(cli: Cli, wire: Wire) -> None:
    reply = Raw(200, b"<html>maintenance</html>", "text/html")
    _run(cli, wire, reply, stream=True, expected="expected an event stream, got text/html (status 200)")
