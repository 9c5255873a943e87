"""OpenAIChatSession: an ``LlmSession`` over the Chat Completions API (OpenAI and compatibles)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from types import ModuleType
from typing import Any

from quorum.application.ports.llm import ToolSchemas
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.openai.stream import ChatStreamAccumulator
from quorum.infrastructure.providers.openai.wire import message_to_wire, parse_completion, tools_to_wire
from quorum.infrastructure.providers.session_base import ProviderSession, Wire


class OpenAIChatSession(ProviderSession):
    """A conversation over ``POST /chat/completions``.

    Tools go out as ``{"type": "function", "function": {...}}``; results as ``role: "tool"``
    messages under the call's id; streaming asks for usage in the last chunk.

    Args:
        client: returns the ``AsyncOpenAI`` client for the running event loop.
        model: the model name.
        system_prompt: the first message of every request, when given.
        history: a neutral conversation to continue.
        errors: translates SDK exceptions.
        sdk: the ``openai`` module.
        max_tokens: ``(parameter name, value)`` of the output cap, or None to send none.
        images: send tool result images (as a user message after the tool messages); False
            replaces them with a note, for models that take no image input.
    """

    def __init__(
        self,
        *,
        client: Callable[[], Any],
        model: str,
        system_prompt: str | None,
        history: Sequence[Message],
        errors: ErrorTranslator,
        sdk: ModuleType,
        max_tokens: tuple[str, int] | None = None,
        images: bool = True,
    ) -> None:
        self._client = client
        self._max_tokens = max_tokens
        self._images = images
        super().__init__(model=model, system_prompt=system_prompt, history=history, errors=errors, sdk=sdk)

    def _initial_wire(self) -> list[Wire]:
        return [{"role": "system", "content": self._system_prompt}] if self._system_prompt else []

    def _message_to_wire(self, message: Message) -> list[Wire]:
        return message_to_wire(message, images=self._images)

    def _tools_to_wire(self, tools: ToolSchemas) -> list[Wire]:
        return tools_to_wire(tools)

    def _request(self, tools: list[Wire] | None, tools_allowed: bool) -> dict[str, Any]:
        request: dict[str, Any] = {"model": self._model, "messages": self._wire}
        if tools:
            request["tools"] = tools
            if not tools_allowed:
                request["tool_choice"] = "none"
        if self._max_tokens is not None:
            request[self._max_tokens[0]] = self._max_tokens[1]
        return request

    def _open(self, request: dict[str, Any], *, stream: bool) -> AbstractAsyncContextManager[Any]:
        create = self._client().chat.completions.with_streaming_response.create
        if stream:
            return create(**request, stream=True, stream_options={"include_usage": True})
        return create(**request)

    def _parse(self, body: dict[str, Any]) -> LlmResponse:
        return parse_completion(body)

    def _accumulator(self) -> ChatStreamAccumulator:
        return ChatStreamAccumulator(self._errors)
