"""A new provider API is a ``WireApi`` and a gateway class naming it (decision 191).

A toy adapter of OpenAI's Responses API, written here in the few lines a wire mapping takes,
registered with ``register_sdk_kind`` and driven through the real openai SDK to a local server:
the key, the client, the history, the retries' policy and the error messages come from the shared
core, unwritten.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar

import pytest

from quorum.application.ports.llm import LlmSession, ToolSchemas, TurnInput
from quorum.domain.errors import ProviderError
from quorum.domain.messages import Message
from quorum.domain.responses import ContentBlock, LlmResponse, StopReason, TextBlock, Usage
from quorum.domain.tools import ToolCall, ToolResult
from quorum.infrastructure.plugins.contracts import ProviderContext
from quorum.infrastructure.plugins.registries import ProviderRegistry
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.gateway_base import SdkGateway, register_sdk_kind
from quorum.infrastructure.providers.openai.settings import OpenAISettings
from quorum.infrastructure.providers.wire_api import StreamAccumulator, Wire, WireApi, decode_arguments, response
from tests.integration.providers.conftest import TOOLS
from tests.support.http_server import JsonReply, Recorded, Reply, ScriptedHttpServer


class ToyResponsesApi(WireApi[OpenAISettings]):
    """``POST /v1/responses``, non-streamed, text and function calls only."""

    sdk: ClassVar[str] = "openai"
    client_class: ClassVar[str] = "AsyncOpenAI"
    base_url_env: ClassVar[str] = "OPENAI_BASE_URL"
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"

    def message_to_wire(self, message: Message) -> list[Wire]:
        items: list[Wire] = []
        for block in message.content:
            if isinstance(block, TextBlock) and block.text:
                items.append({"role": message.role, "content": block.text})
            elif isinstance(block, ToolCall):
                arguments = json.dumps(dict(block.arguments))
                items.append({"type": "function_call", "call_id": block.native_id, "name": block.name})
                items[-1]["arguments"] = arguments
            elif isinstance(block, ToolResult):
                items.append({"type": "function_call_output", "call_id": block.call_id, "output": block.output})
        return items

    def tools_to_wire(self, tools: ToolSchemas) -> list[Wire]:
        return [{"type": "function", "name": t["name"], "parameters": t["input_schema"]} for t in tools]

    def request(
        self, model: str, system_prompt: str | None, messages: list[Wire], tools: list[Wire] | None, tools_allowed: bool
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": model, "input": messages, "instructions": system_prompt}
        if tools:
            request["tools"] = tools
        return request

    def open(self, client: Any, request: dict[str, Any], *, stream: bool) -> AbstractAsyncContextManager[Any]:
        return client.responses.with_streaming_response.create(**request)

    def parse(self, body: dict[str, Any]) -> LlmResponse:
        content: list[ContentBlock] = []
        for item in body["output"]:
            if item["type"] == "message":
                content.extend(TextBlock(text=part["text"]) for part in item["content"])
            elif item["type"] == "function_call":
                value, error, raw = decode_arguments(item["arguments"])
                content.append(
                    ToolCall(
                        native_id=item["call_id"],
                        name=item["name"],
                        arguments=value,
                        arguments_error=error,
                        raw_arguments=raw,
                    )
                )
        calls = any(isinstance(block, ToolCall) for block in content)
        usage = Usage(input_tokens=body["usage"]["input_tokens"], output_tokens=body["usage"]["output_tokens"])
        return response(content, StopReason.tool_use() if calls else StopReason.end_turn(), body["model"], usage)

    def accumulator(self, errors: ErrorTranslator) -> StreamAccumulator:
        raise NotImplementedError("the toy adapter does not stream")


class ToyResponsesGateway(SdkGateway[OpenAISettings]):
    """The toy adapter's gateway: all it says is which API it speaks."""

    api = ToyResponsesApi


@pytest.fixture
def server() -> Iterator[ScriptedHttpServer]:
    def render(item: Any, request: Recorded) -> Reply:
        return item  # type: ignore[no-any-return]

    server = ScriptedHttpServer(render).start()
    try:
        yield server
    finally:
        server.stop()
    assert server.unexpected == 0 and server.remaining == 0


def reply(output: list[dict[str, Any]]) -> JsonReply:
    return JsonReply(200, {"model": "toy-1", "output": output, "usage": {"input_tokens": 5, "output_tokens": 2}})


def gateway_for(server: ScriptedHttpServer) -> SdkGateway[OpenAISettings]:
    registry = ProviderRegistry()
    register_sdk_kind(registry, "responses", ToyResponsesGateway, OpenAISettings, "A toy Responses API.")
    entry = registry.get("responses")
    assert entry is not None and entry.settings is OpenAISettings and entry.description == "A toy Responses API."
    settings = OpenAISettings(base_url=server.url + "/v1", api_key="sk-toy", max_retries=0)
    gateway = entry.value(ProviderContext(name="toy", kind="responses", settings=settings, env={}))
    assert isinstance(gateway, ToyResponsesGateway)
    return gateway


async def test_a_wire_api_and_a_gateway_class_make_a_working_provider(server: ScriptedHttpServer) -> None:
    call = {"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": '{"path": "a.txt"}'}
    server.enqueue(reply([call]), reply([{"type": "message", "role": "assistant", "content": [{"text": "done"}]}]))
    gateway = gateway_for(server)
    session = gateway.session("toy-1", "be brief")
    assert isinstance(session, LlmSession)

    first = await session.request(TurnInput.user("read a.txt", TOOLS))
    assert [type(b).__name__ for b in first.content] == ["ToolCall"] and first.stop_reason == StopReason.tool_use()
    result = ToolResult(call_id="c1", name="read_file", output="hello")
    second = await session.request(TurnInput.answering([result], TOOLS))
    await gateway.aclose()

    assert second.content == (TextBlock(text="done"),) and second.usage == Usage(input_tokens=5, output_tokens=2)
    assert [r.path for r in server.requests] == ["/v1/responses", "/v1/responses"]
    assert server.requests[1].headers["authorization"] == "Bearer sk-toy"
    assert server.requests[1].body["input"] == [
        {"role": "user", "content": "read a.txt"},
        {"type": "function_call", "call_id": "c1", "name": "read_file", "arguments": '{"path": "a.txt"}'},
        {"type": "function_call_output", "call_id": "c1", "output": "hello"},
    ]
    assert [m.role for m in session.history()] == ["user", "assistant", "user", "assistant"]


async def test_the_shared_core_translates_the_new_apis_errors(server: ScriptedHttpServer) -> None:
    server.enqueue(JsonReply(404, {"error": {"message": "no such model", "type": "invalid_request_error"}}))
    gateway = gateway_for(server)
    with pytest.raises(ProviderError, match=r"model 'toy-9' not found at provider 'toy'.*no such model") as raised:
        await gateway.session("toy-9").request(TurnInput.user("hi", None))
    await gateway.aclose()
    assert raised.value.status_code == 404
