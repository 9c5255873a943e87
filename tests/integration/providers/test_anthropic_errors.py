"""Anthropic gateway configuration and SDK failures translated into domain errors."""

from __future__ import annotations

import socket

import pytest

from quorum.application.ports.llm import TurnInput
from quorum.domain.errors import ConfigurationError, ProviderError
from quorum.infrastructure.providers.anthropic import AnthropicGateway, AnthropicSettings
from tests.integration.providers.conftest import TOOLS, anthropic_gateway, collect
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Fail, Turn


async def test_401_names_the_key_variable(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Fail(401, "invalid x-api-key"))

    with pytest.raises(ProviderError) as caught:
        await ant.session("claude-test").request(TurnInput.user("hi"))

    error = caught.value
    assert str(error).startswith("invalid or missing API key for provider 'claude' (set ANTHROPIC_API_KEY")
    assert (error.status_code, error.provider, error.model, error.base_url) == (
        401,
        "claude",
        "claude-test",
        ant_server.url,
    )
    assert len(ant_server.requests) == 1


async def test_404_names_the_model(ant, ant_server: ScriptedHttpServer) -> None:
    ant_server.enqueue(Fail(404, "model: claude-nope"))
    with pytest.raises(ProviderError, match="model 'claude-nope' not found at provider 'claude'"):
        await collect(ant.session("claude-nope").request_stream(TurnInput.user("hi", TOOLS)))


async def test_429_then_success_is_retried_by_the_sdk(ant_server: ScriptedHttpServer) -> None:
    gateway = anthropic_gateway(ant_server, max_retries=2)
    ant_server.enqueue(Fail(429, "slow down", headers={"retry-after-ms": "10"}), Turn(text="fine"))

    events = await collect(gateway.session("claude-test").request_stream(TurnInput.user("hi")))

    await gateway.aclose()
    assert events[-1].response.text_content() == "fine"
    assert len(ant_server.requests) == 2


async def test_529_overloaded_after_retries(ant_server: ScriptedHttpServer) -> None:
    gateway = anthropic_gateway(ant_server, max_retries=1)
    ant_server.enqueue(*[Fail(529, "Overloaded", headers={"retry-after-ms": "5"})] * 2)

    with pytest.raises(ProviderError, match=r"failed with HTTP 529 after 1 retries: Overloaded") as caught:
        await gateway.session("claude-test").request(TurnInput.user("hi"))

    await gateway.aclose()
    assert caught.value.status_code == 529


async def test_connection_refused_names_the_base_url() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}"
    gateway = AnthropicGateway("claude", AnthropicSettings(base_url=base_url, max_retries=0), {})

    with pytest.raises(ProviderError, match=f"cannot connect to provider 'claude' at {base_url}"):
        await gateway.session("m").request(TurnInput.user("hi"))

    await gateway.aclose()


def test_missing_key_for_the_real_service_is_a_configuration_error() -> None:
    gateway = AnthropicGateway("anthropic", AnthropicSettings(), {})
    with pytest.raises(ConfigurationError, match="set the environment variable ANTHROPIC_API_KEY"):
        gateway.session("claude-sonnet-4-5")


async def test_key_and_base_url_come_from_the_given_environment(ant_server: ScriptedHttpServer) -> None:
    env = {"ANTHROPIC_API_KEY": "sk-ant-env", "ANTHROPIC_BASE_URL": ant_server.url}
    gateway = AnthropicGateway("anthropic", AnthropicSettings(max_retries=0, headers={"X-Team": "q"}), env)
    ant_server.enqueue(Turn(text="ok"))

    await gateway.session("m").request(TurnInput.user("hi"))

    await gateway.aclose()
    assert ant_server.requests[0].headers["authorization"] == "Bearer sk-ant-env"
    assert ant_server.requests[0].headers["x-team"] == "q"


async def test_large_max_tokens_without_streaming_is_sent_not_refused(ant_server: ScriptedHttpServer) -> None:
    gateway = anthropic_gateway(ant_server, max_tokens=64_000)
    ant_server.enqueue(Turn(text="ok"))

    await gateway.session("claude-test").request(TurnInput.user("hi"))

    await gateway.aclose()
    assert ant_server.bodies()[0]["max_tokens"] == 64_000
