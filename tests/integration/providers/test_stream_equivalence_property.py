"""Property: for any reply, the streamed response equals the plain one (both SDKs, all three APIs, real HTTP)."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quorum.application.ports.llm import TurnInput
from quorum.domain.streaming import StreamCompleted, StreamTextDelta
from tests.integration.providers.conftest import TOOLS, anthropic_gateway, openai_gateway
from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

json_values = st.one_of(st.none(), st.booleans(), st.integers(), st.text(max_size=12))
arguments = st.dictionaries(st.text(max_size=6), json_values, max_size=3)


@st.composite
def turns(draw: Any) -> Turn:
    calls = tuple(
        Call(f"call_{i}", draw(st.sampled_from(["read_file", "list_dir"])), draw(arguments))
        for i in range(draw(st.integers(0, 3)))
    )
    return Turn(
        text=draw(st.text(max_size=40)),
        calls=calls,
        usage=(draw(st.integers(0, 10_000)), draw(st.integers(1, 10_000))),
        piece=draw(st.integers(1, 9)),
    )


@pytest.fixture(scope="module", params=["openai", "responses", "anthropic"])
def wire(request: pytest.FixtureRequest) -> Iterator[tuple[str, ScriptedHttpServer]]:
    server = anthropic_server() if request.param == "anthropic" else openai_server()
    yield request.param, server
    server.stop()


async def _both(kind: str, server: ScriptedHttpServer, turn: Turn) -> tuple[Any, list[Any]]:
    if kind == "anthropic":
        gateway: Any = anthropic_gateway(server)
    else:
        gateway = openai_gateway(server, api="responses" if kind == "responses" else "chat")
    server.enqueue(turn, turn)
    try:
        plain = await gateway.session("m").request(TurnInput.user("go", TOOLS))
        events = [e async for e in gateway.session("m").request_stream(TurnInput.user("go", TOOLS))]
    finally:
        await gateway.aclose()
    return plain, events


@settings(max_examples=25, deadline=None)
@given(turn=turns())
def test_streamed_equals_plain_for_any_reply(wire: tuple[str, ScriptedHttpServer], turn: Turn) -> None:
    kind, server = wire
    plain, events = asyncio.run(_both(kind, server, turn))

    assert isinstance(events[-1], StreamCompleted) and events[-1].response == plain
    assert "".join(e.text for e in events if isinstance(e, StreamTextDelta)) == turn.text
    assert [(c.native_id, dict(c.arguments)) for c in plain.tool_calls()] == [(c.id, c.arguments) for c in turn.calls]
    assert server.unexpected == 0 and server.remaining == 0
