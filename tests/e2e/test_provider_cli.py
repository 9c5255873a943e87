"""``quorum run --json`` as a subprocess against a local OpenAI / Anthropic wire server.

The configured instance (``[providers.local] type = ...``) points at a scripted server started by
the test; the model calls two built-in low-risk tools over two turns, then answers. ``responses``
is the ``openai`` kind with ``api = "responses"`` (``POST /v1/responses``).
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from tests.e2e.conftest import Cli
from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Fail, Turn

SCRIPT = [
    Turn(text="Reading the notes.", calls=(Call("id_1", "read_file", {"path": "notes.txt"}),), usage=(11, 4)),
    Turn(calls=(Call("id_2", "list_dir", {}),), usage=(22, 5)),
    Turn(text="The notes say hello.", usage=(33, 6)),
]


@pytest.fixture(params=["openai", "responses", "anthropic"])
def server(request: pytest.FixtureRequest) -> Iterator[tuple[str, ScriptedHttpServer]]:
    kind = request.param
    started = anthropic_server() if kind == "anthropic" else openai_server()
    try:
        yield kind, started
    finally:
        started.stop()


def _configure(cli: Cli, kind: str, server: ScriptedHttpServer, *, key: str = "x") -> None:
    base_url = server.url if kind == "anthropic" else server.url + "/v1"
    api = 'api = "responses"\n' if kind == "responses" else ""
    provider_type = "openai" if kind == "responses" else kind
    cli.write(
        "quorum.toml",
        f'[providers.local]\ntype = "{provider_type}"\nbase_url = "{base_url}"\napi_key = "{key}"\nmax_retries = 0\n'
        + api,
    )


def _results(kind: str, body: dict[str, Any]) -> dict[str, str]:
    if kind == "openai":
        return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}
    if kind == "responses":
        return {i["call_id"]: i["output"] for i in body["input"] if i.get("type") == "function_call_output"}
    return {
        b["tool_use_id"]: b["content"]
        for m in body["messages"]
        if isinstance(m["content"], list)
        for b in m["content"]
        if b["type"] == "tool_result"
    }


def test_two_tool_turns_then_a_final_answer(cli: Cli, server: tuple[str, ScriptedHttpServer]) -> None:
    kind, wire = server
    _configure(cli, kind, wire)
    cli.write("notes.txt", "hello from the notes\n")
    wire.enqueue(*SCRIPT)

    result = cli("run", "--model", "local:m", "--json", "--workspace", str(cli.workspace), "what do the notes say?")

    assert result.code == 0, result.stderr
    events = result.events()
    assert events[0]["type"] == "run_started"
    finished = events[-1]
    assert finished["type"] == "run_finished"
    assert (finished["stop_reason"], finished["turns"], finished["output"]) == (
        "end_turn",
        3,
        "The notes say hello.",
    )
    assert finished["usage"]["input_tokens"] == 66 and finished["usage"]["output_tokens"] == 15
    assert [(e["id"], e["name"]) for e in events if e["type"] == "tool_call"] == [
        ("id_1", "read_file"),
        ("id_2", "list_dir"),
    ]
    outputs = {e["call_id"]: e for e in events if e["type"] == "tool_result"}
    assert not outputs["id_1"]["is_error"] and "hello from the notes" in outputs["id_1"]["output"]
    assert "notes.txt" in outputs["id_2"]["output"]

    bodies = wire.bodies()
    assert len(bodies) == 3 and wire.unexpected == 0
    assert all(b["model"] == "m" for b in bodies)
    assert wire.requests[0].headers["authorization"] == "Bearer x"
    assert "hello from the notes" in _results(kind, bodies[1])["id_1"]
    assert set(_results(kind, bodies[2])) == {"id_1", "id_2"}


def test_a_rejected_key_is_one_clear_line_and_exit_1(cli: Cli, server: tuple[str, ScriptedHttpServer]) -> None:
    kind, wire = server
    _configure(cli, kind, wire, key="wrong")
    wire.enqueue(Fail(401, "invalid key"))

    result = cli("run", "--model", "local:m", "--json", "--workspace", str(cli.workspace), "hi")

    assert result.code == 1, result.stderr
    assert "invalid or missing API key for provider 'local'" in result.stderr
    assert "Traceback" not in result.stderr
    assert result.events()[-1]["stop_reason"] == "error"
