"""``[agent] tools_profile`` through ``quorum run`` against a local OpenAI server (the real SDK).

What the model is offered: the tools' parameters and the system prompt.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Turn


@pytest.fixture
def wire() -> Iterator[ScriptedHttpServer]:
    server = openai_server()
    try:
        yield server
    finally:
        server.stop()


def _run(cli: Cli, wire: ScriptedHttpServer, agent: str) -> dict:  # type: ignore[type-arg]
    cli.write(
        "quorum.toml",
        f'[agent]\n{agent}\n[providers.local]\ntype = "openai"\nbase_url = "{wire.url}/v1"\napi_key = "x"\n',
    )
    wire.enqueue(Turn(text="done"))
    result = cli("run", "--model", "local:m", "--json", "hi")
    assert result.code == 0, result.stderr
    return wire.bodies()[-1]  # type: ignore[no-any-return]


def _properties(body: dict, name: str) -> list[str]:  # type: ignore[type-arg]
    (tool,) = [t["function"] for t in body["tools"] if t["function"]["name"] == name]
    return list(tool["parameters"]["properties"])


def test_lean_offers_required_parameters_and_the_short_prompt(cli: Cli, wire: ScriptedHttpServer) -> None:
    body = _run(cli, wire, 'tools_profile = "lean"')
    assert _properties(body, "read_file") == ["path"] and _properties(body, "grep_search") == ["pattern"]
    assert body["messages"][0]["content"].startswith("You are a software agent working in")


def test_a_small_context_window_chooses_lean_and_full_can_be_forced(cli: Cli, wire: ScriptedHttpServer) -> None:
    assert _properties(_run(cli, wire, "context_window = 8192"), "read_file") == ["path"]
    forced = _run(cli, wire, 'context_window = 8192\ntools_profile = "full"')
    assert _properties(forced, "read_file") == ["path", "offset", "limit"]
    assert forced["messages"][0]["content"].startswith("You are Quorum, a careful software agent.")
