"""ResponsesApi: the ``WireApi`` of ``POST /v1/responses`` (``[providers.NAME] api = "responses"``)."""

from __future__ import annotations

from contextlib import AbstractAsyncContextManager
from typing import Any, ClassVar

from quorum.application.ports.llm import ToolSchemas
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, ReasoningLevel
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.openai.cache import prompt_cache_key
from quorum.infrastructure.providers.openai.responses_reasoning import with_effort
from quorum.infrastructure.providers.openai.responses_stream import ResponsesStreamAccumulator
from quorum.infrastructure.providers.openai.responses_wire import message_to_wire, parse_response, tools_to_wire
from quorum.infrastructure.providers.openai.settings import OpenAISettings
from quorum.infrastructure.providers.wire_api import Wire, WireApi


class ResponsesApi(WireApi[OpenAISettings]):
    """OpenAI's Responses API, through the ``openai`` SDK's ``responses`` resource.

    The system prompt is the request's ``instructions``; the history is ``input`` items; tools go
    out as ``{"type": "function", "name", "description", "parameters"}``. Nothing is stored at the
    provider (``store: false``), so no response id is needed to go on and a deferred run can be
    continued anywhere. The output cap (``max_tokens`` in the settings) is ``max_output_tokens``.
    With ``cache = "auto"`` every request of a conversation carries the same ``prompt_cache_key``.
    An answer's JSON Schema is ``text.format`` (decision 260).
    """

    sdk: ClassVar[str] = "openai"
    client_class: ClassVar[str] = "AsyncOpenAI"
    base_url_env: ClassVar[str] = "OPENAI_BASE_URL"
    default_base_url: ClassVar[str] = "https://api.openai.com/v1"

    def message_to_wire(self, message: Message) -> list[Wire]:
        return message_to_wire(message, images=self.settings.images)

    def tools_to_wire(self, tools: ToolSchemas) -> list[Wire]:
        return tools_to_wire(tools)

    def request(
        self, model: str, system_prompt: str | None, messages: list[Wire], tools: list[Wire] | None, tools_allowed: bool
    ) -> dict[str, Any]:
        request: dict[str, Any] = {"model": model, "input": messages, "store": False}
        if system_prompt:
            request["instructions"] = system_prompt
        if tools:
            request["tools"] = tools
            if not tools_allowed:
                request["tool_choice"] = "none"
        if self.settings.max_tokens is not None:
            request["max_output_tokens"] = self.settings.max_tokens
        if self.settings.cache == "auto" and (key := prompt_cache_key(messages)):
            request["prompt_cache_key"] = key
        return request

    def with_reasoning(self, request: dict[str, Any], level: ReasoningLevel) -> dict[str, Any]:
        """``reasoning.effort`` at the level, its items returned encrypted (``off``: none)."""
        return with_effort(request, level)

    def with_answer_schema(self, request: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        """Structured output: ``text.format`` of type ``json_schema`` (not strict: any valid schema goes)."""
        answer = {"type": "json_schema", "name": "final_answer", "schema": schema}
        return {**request, "text": {**request.get("text", {}), "format": answer}}

    def open(self, client: Any, request: dict[str, Any], *, stream: bool) -> AbstractAsyncContextManager[Any]:
        create = client.responses.with_streaming_response.create
        return create(**request, stream=True) if stream else create(**request)

    def parse(self, body: dict[str, Any]) -> LlmResponse:
        return parse_response(body)

    def accumulator(self, errors: ErrorTranslator) -> ResponsesStreamAccumulator:
        return ResponsesStreamAccumulator(errors)
