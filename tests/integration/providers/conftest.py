"""Fixtures: the scripted wire servers, gateways pointed at them, and a clean environment."""

from __future__ import annotations

import os
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from quorum.infrastructure.providers.anthropic import AnthropicGateway, AnthropicSettings
from quorum.infrastructure.providers.openai import OpenAIChatGateway, OpenAISettings
from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server

TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file.",
        "input_schema": {"type": "object", "properties": {"path": {"type": "string"}}, "required": ["path"]},
    },
    {
        "name": "list_dir",
        "description": "List a directory.",
        "input_schema": {"type": "object", "properties": {}},
    },
]


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """Nothing from the developer's shell (keys, base URLs, profiles) reaches the SDKs."""
    for name in list(os.environ):
        if name.startswith(("OPENAI_", "ANTHROPIC_")):
            monkeypatch.delenv(name)


def _serve(server: ScriptedHttpServer) -> Iterator[ScriptedHttpServer]:
    try:
        yield server
    finally:
        server.stop()
    assert server.unexpected == 0, f"{server.unexpected} request(s) beyond the script: {server.bodies()}"
    assert server.remaining == 0, f"{server.remaining} scripted reply(ies) never requested"


@pytest.fixture
def oai_server() -> Iterator[ScriptedHttpServer]:
    yield from _serve(openai_server())


@pytest.fixture
def ant_server() -> Iterator[ScriptedHttpServer]:
    yield from _serve(anthropic_server())


def openai_gateway(server: ScriptedHttpServer, **settings: Any) -> OpenAIChatGateway:
    values: dict[str, Any] = {"base_url": server.url + "/v1", "api_key": "sk-test", "max_retries": 0}
    values.update(settings)
    return OpenAIChatGateway("local", OpenAISettings(**values), {})


def anthropic_gateway(server: ScriptedHttpServer, **settings: Any) -> AnthropicGateway:
    values: dict[str, Any] = {"base_url": server.url, "api_key": "sk-ant-test", "max_retries": 0}
    values.update(settings)
    return AnthropicGateway("claude", AnthropicSettings(**values), {})


@pytest.fixture
async def oai(oai_server: ScriptedHttpServer) -> AsyncIterator[OpenAIChatGateway]:
    """A gateway sending the mapping's exact wire: ``cache = "off"`` (test_prompt_caching.py adds caching)."""
    gateway = openai_gateway(oai_server, cache="off")
    yield gateway
    await gateway.aclose()


@pytest.fixture
async def ant(ant_server: ScriptedHttpServer) -> AsyncIterator[AnthropicGateway]:
    """A gateway sending the mapping's exact wire: ``cache = "off"`` (test_prompt_caching.py adds caching)."""
    gateway = anthropic_gateway(ant_server, cache="off")
    yield gateway
    await gateway.aclose()


async def collect(events: Any) -> list[Any]:
    """Every event of a stream, in order."""
    return [event async for event in events]
