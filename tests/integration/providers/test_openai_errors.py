"""OpenAI gateway configuration and SDK failures translated into domain errors."""

from __future__ import annotations

import socket
import threading

import pytest
from pydantic import ValidationError

from quorum.application.ports.llm import TurnInput
from quorum.domain.errors import ConfigurationError, ProviderError
from quorum.infrastructure.providers.openai import OpenAIChatGateway, OpenAISettings
from tests.integration.providers.conftest import TOOLS, collect, openai_gateway
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Disconnect, Fail, Hang, Turn


async def test_401_names_the_key_variable_and_keeps_the_facts(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Fail(401, "Incorrect API key provided"))

    with pytest.raises(ProviderError) as caught:
        await oai.session("gpt-test").request(TurnInput.user("hi"))

    error = caught.value
    assert str(error).startswith("invalid or missing API key for provider 'local' (set OPENAI_API_KEY")
    assert "Incorrect API key provided" in str(error)
    assert (error.status_code, error.provider, error.model) == (401, "local", "gpt-test")
    assert error.base_url == oai_server.url + "/v1"


async def test_403_in_a_stream_request_is_the_key_message_too(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Fail(403, "forbidden"))
    with pytest.raises(ProviderError, match="invalid or missing API key") as caught:
        await collect(oai.session("gpt-test").request_stream(TurnInput.user("hi", TOOLS)))
    assert caught.value.status_code == 403


async def test_404_names_the_model(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Fail(404, "The model `gpt-nope` does not exist"))
    with pytest.raises(ProviderError, match=r"model 'gpt-nope' not found at provider 'local'") as caught:
        await oai.session("gpt-nope").request(TurnInput.user("hi"))
    assert caught.value.status_code == 404


async def test_429_then_success_is_retried_by_the_sdk(oai_server: ScriptedHttpServer) -> None:
    gateway = openai_gateway(oai_server, max_retries=2)
    oai_server.enqueue(Fail(429, "slow down", headers={"retry-after-ms": "10"}), Turn(text="fine"))

    response = await gateway.session("gpt-test").request(TurnInput.user("hi"))

    await gateway.aclose()
    assert response.text_content() == "fine"
    assert len(oai_server.requests) == 2
    assert [r.headers["x-stainless-retry-count"] for r in oai_server.requests] == ["0", "1"]
    assert oai_server.bodies()[0] == oai_server.bodies()[1]


async def test_429_after_retries_says_rate_limited(oai_server: ScriptedHttpServer) -> None:
    gateway = openai_gateway(oai_server, max_retries=1)
    oai_server.enqueue(*[Fail(429, "quota", headers={"retry-after-ms": "5"})] * 2)

    with pytest.raises(ProviderError, match=r"rate-limiting requests \(HTTP 429\) after 1 retries: quota") as caught:
        await gateway.session("gpt-test").request(TurnInput.user("hi"))

    await gateway.aclose()
    assert caught.value.status_code == 429


async def test_500_after_retries(oai_server: ScriptedHttpServer) -> None:
    gateway = openai_gateway(oai_server, max_retries=1)
    oai_server.enqueue(*[Fail(500, "boom", headers={"retry-after-ms": "5"})] * 2)

    with pytest.raises(ProviderError, match=r"failed with HTTP 500 after 1 retries: boom") as caught:
        await collect(gateway.session("gpt-test").request_stream(TurnInput.user("hi")))

    await gateway.aclose()
    assert caught.value.status_code == 500
    assert len(oai_server.requests) == 2


async def test_connection_refused_names_the_base_url() -> None:
    with socket.socket() as probe:  # a port nobody listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    base_url = f"http://127.0.0.1:{port}/v1"
    gateway = OpenAIChatGateway("local", OpenAISettings(base_url=base_url, max_retries=0), {})

    with pytest.raises(ProviderError, match=rf"cannot connect to provider 'local' at {base_url}") as caught:
        await gateway.session("m").request(TurnInput.user("hi"))

    await gateway.aclose()
    assert caught.value.status_code is None and caught.value.base_url == base_url


async def test_server_closing_without_a_response_names_the_base_url(oai, oai_server: ScriptedHttpServer) -> None:
    oai_server.enqueue(Disconnect())
    with pytest.raises(ProviderError, match=r"cannot connect to provider 'local' at http://127\.0\.0\.1"):
        await oai.session("m").request(TurnInput.user("hi"))


async def test_timeout_names_the_base_url_and_the_limit(oai_server: ScriptedHttpServer) -> None:
    release = threading.Event()
    gateway = openai_gateway(oai_server, timeout=0.2)
    oai_server.enqueue(Hang(release))
    try:
        with pytest.raises(ProviderError, match=r"timed out after 0\.2 s") as caught:
            await gateway.session("m").request(TurnInput.user("hi"))
    finally:
        release.set()
        await gateway.aclose()
    assert oai_server.url in str(caught.value)


def test_missing_key_for_the_real_service_is_a_configuration_error() -> None:
    gateway = OpenAIChatGateway("openai", OpenAISettings(), {})
    with pytest.raises(ConfigurationError, match="set the environment variable OPENAI_API_KEY") as caught:
        gateway.session("gpt-4.1-mini")
    assert caught.value.key == "providers.openai.api_key"


def test_custom_key_variable_is_named() -> None:
    gateway = OpenAIChatGateway("router", OpenAISettings(api_key_env="ROUTER_KEY"), {"OPENAI_API_KEY": "other"})
    with pytest.raises(ConfigurationError, match="ROUTER_KEY"):
        gateway.session("m")


async def test_key_and_base_url_come_from_the_given_environment(oai_server: ScriptedHttpServer) -> None:
    env = {"OPENAI_API_KEY": "sk-from-env", "OPENAI_BASE_URL": oai_server.url + "/v1"}
    gateway = OpenAIChatGateway("openai", OpenAISettings(max_retries=0), env)
    oai_server.enqueue(Turn(text="ok"))

    await gateway.session("m").request(TurnInput.user("hi"))

    await gateway.aclose()
    assert oai_server.requests[0].headers["authorization"] == "Bearer sk-from-env"


async def test_local_server_without_key_gets_a_placeholder_and_extra_headers(
    oai_server: ScriptedHttpServer,
) -> None:
    settings = OpenAISettings(base_url=oai_server.url + "/v1", headers={"X-Team": "quorum"}, max_tokens=64)
    gateway = OpenAIChatGateway("ollama", settings, {})
    oai_server.enqueue(Turn(text="ok"))

    await gateway.session("llama3").request(TurnInput.user("hi"))

    await gateway.aclose()
    request = oai_server.requests[0]
    assert request.headers["authorization"] == "Bearer not-needed"
    assert request.headers["x-team"] == "quorum"
    assert request.body["max_tokens"] == 64


def test_settings_forbid_unknown_keys_and_hide_the_key() -> None:
    with pytest.raises(ValidationError):
        OpenAISettings(api_kye="x")  # type: ignore[call-arg]
    settings = OpenAISettings(api_key="sk-secret-value")
    assert "sk-secret-value" not in repr(settings)
    assert "sk-secret-value" not in settings.model_dump_json()
