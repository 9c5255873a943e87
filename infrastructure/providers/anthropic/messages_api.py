"""MessagesApi: the ``WireApi`` of the Anthropic Messages API, ``POST /v1/messages``."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar

from quorum.application.ports.llm import ToolSchemas
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, ReasoningLevel
from quorum.infrastructure.providers.anthropic import thinking
from quorum.infrastructure.providers.anthropic.cache import with_breakpoints
from quorum.infrastructure.providers.anthropic.settings import AnthropicSettings
from quorum.infrastructure.providers.anthropic.stream import MessageStreamAccumulator
from quorum.infrastructure.providers.anthropic.wire import message_to_wire, parse_message, tools_to_wire
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.wire_api import (
    FINAL_ANSWER,
    Wire,
    WireApi,
    final_answer_as_text,
    final_answer_tool,
)

_NO_TOOLS = {"type": "none"}


class MessagesApi(WireApi[AnthropicSettings]):
    """The Anthropic Messages API.

    The system prompt goes as ``system``; tools with ``input_schema``; results as a user message of
    ``tool_result`` blocks with ``is_error`` set for failures and rejections; streaming reads the
    raw SSE event stream.

    Every request carries ``max_tokens`` (the API requires a cap) and the timeout: an explicit
    timeout also stops the SDK from refusing large ``max_tokens`` without streaming. Tools stay in a
    request that forbids their use (``tool_choice: none``): a history holding tool calls needs them.
    Reasoning is extended thinking (``thinking.py``), its blocks kept and sent back as received.
    With ``cache = "auto"`` each request carries ``cache_control`` breakpoints (``cache.py``). An
    answer's JSON Schema is a ``final_answer`` tool, its call made the answer's text (decision 260).
    """

    sdk: ClassVar[str] = "anthropic"
    client_class: ClassVar[str] = "AsyncAnthropic"
    base_url_env: ClassVar[str] = "ANTHROPIC_BASE_URL"
    default_base_url: ClassVar[str] = "https://api.anthropic.com"

    def message_to_wire(self, message: Message) -> list[Wire]:
        return message_to_wire(message)

    def tools_to_wire(self, tools: ToolSchemas) -> list[Wire]:
        return tools_to_wire(tools)

    def request(
        self, model: str, system_prompt: str | None, messages: list[Wire], tools: list[Wire] | None, tools_allowed: bool
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": model, "max_tokens": self.settings.max_tokens, "messages": messages}
        if system_prompt:
            request["system"] = system_prompt
        if tools:
            request["tools"] = tools
            if not tools_allowed:
                request["tool_choice"] = _NO_TOOLS
        if self.settings.cache == "auto":
            request = with_breakpoints(request, self.settings.cache_ttl)
        return request

    def with_reasoning(self, request: dict[str, Any], level: ReasoningLevel) -> dict[str, Any]:
        return thinking.with_thinking(request, level, mode=self.settings.thinking, max_tokens=self.settings.max_tokens)

    def with_answer_schema(self, request: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        """A ``final_answer`` tool whose parameters are ``schema``, after the request's own tools.

        With no other tool, and no extended thinking (which refuses a forced tool), the request
        forces that tool: the answer can only come through it.
        """
        final = tools_to_wire([final_answer_tool(schema)])
        tools = request.get("tools") or []
        request = {**request, "tools": [*tools, *final]}
        if not tools and "thinking" not in request:
            request["tool_choice"] = {"type": "tool", "name": FINAL_ANSWER}
        return request

    def answer_of(self, response: LlmResponse) -> LlmResponse:
        return final_answer_as_text(response)

    def open(self, client: Any, request: dict[str, Any], *, stream: bool) -> AbstractAsyncContextManager[Any]:
        create = client.messages.with_streaming_response.create
        if stream:
            return create(**request, stream=True, timeout=self.settings.sdk_timeout())
        return create(**request, timeout=self.settings.sdk_timeout())

    def parse(self, body: dict[str, Any]) -> LlmResponse:
        return parse_message(body)

    def accumulator(self, errors: ErrorTranslator) -> MessageStreamAccumulator:
        return MessageStreamAccumulator(errors)
