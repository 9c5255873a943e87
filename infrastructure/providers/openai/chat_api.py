"""ChatCompletionsApi: the ``WireApi`` of ``POST /chat/completions`` (OpenAI and compatible servers)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar

from quorum.application.ports.llm import ToolSchemas
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, ReasoningLevel
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.openai.cache import prompt_cache_key
from quorum.infrastructure.providers.openai.settings import OpenAISettings
from quorum.infrastructure.providers.openai.stream import ChatStreamAccumulator
from quorum.infrastructure.providers.openai.wire import message_to_wire, parse_completion, tools_to_wire
from quorum.infrastructure.providers.wire_api import Wire, WireApi


class ChatCompletionsApi(WireApi[OpenAISettings]):
    """Chat Completions, as OpenAI and compatible servers speak it.

    The system prompt is the first message; tools go out as ``{"type": "function", "function":
    {...}}``; results as ``role: "tool"`` messages under the call's id; streaming asks for usage in
    the last chunk.

    The output cap (``max_tokens`` in the settings) is sent as ``max_completion_tokens`` to the
    OpenAI API, which replaced ``max_tokens`` (reasoning models refuse it), and as ``max_tokens``
    to a custom endpoint (what compatible servers know). ``images = false`` replaces the images of
    tool results and tasks with a note. Reasoning is ``reasoning_effort``; Chat Completions
    returns no reasoning to keep (Anthropic's kept blocks are never sent here). With
    ``cache = "auto"`` every request of a conversation carries the same ``prompt_cache_key``
    (``cache.py``). An answer's JSON Schema is ``response_format`` (decision 260).
    """

    sdk: ClassVar[str] = "openai"
    client_class: ClassVar[str] = "AsyncOpenAI"
    base_url_env: ClassVar[str] = "OPENAI_BASE_URL"
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"

    def initial_wire(self, system_prompt: str | None) -> list[Wire]:
        return [{"role": "system", "content": system_prompt}] if system_prompt else []

    def message_to_wire(self, message: Message) -> list[Wire]:
        return message_to_wire(message, images=self.settings.images)

    def tools_to_wire(self, tools: ToolSchemas) -> list[Wire]:
        return tools_to_wire(tools)

    def request(
        self, model: str, system_prompt: str | None, messages: list[Wire], tools: list[Wire] | None, tools_allowed: bool
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": model, "messages": messages}
        if tools:
            request["tools"] = tools
            if not tools_allowed:
                request["tool_choice"] = "none"
        if self.settings.max_tokens is not None:
            field = "max_tokens" if self.custom_endpoint else "max_completion_tokens"
            request[field] = self.settings.max_tokens
        if self.settings.cache == "auto" and (key := prompt_cache_key(messages)):
            request["prompt_cache_key"] = key
        return request

    def with_reasoning(self, request: dict[str, Any], level: ReasoningLevel) -> dict[str, Any]:
        """``reasoning_effort`` at the level (``off``: none; the model's default)."""
        return request if level == "off" else {**request, "reasoning_effort": level}

    def with_answer_schema(self, request: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        """Structured output: ``response_format`` of type ``json_schema`` (not strict: any valid schema goes)."""
        answer = {"name": "final_answer", "schema": schema}
        return {**request, "response_format": {"type": "json_schema", "json_schema": answer}}

    def open(self, client: Any, request: dict[str, Any], *, stream: bool) -> AbstractAsyncContextManager[Any]:
        create = client.chat.completions.with_streaming_response.create
        if stream:
            return create(**request, stream=True, stream_options={"include_usage": True})
        return create(**request)

    def parse(self, body: dict[str, Any]) -> LlmResponse:
        return parse_completion(body)

    def accumulator(self, errors: ErrorTranslator) -> ChatStreamAccumulator:
        return ChatStreamAccumulator(errors)
