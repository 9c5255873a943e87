"""AnthropicMessagesSession: an ``LlmSession`` over the Anthropic Messages API."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from types import ModuleType
from typing import Any

from quorum.application.ports.llm import ToolSchemas
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse
from quorum.infrastructure.providers.anthropic.stream import MessageStreamAccumulator
from quorum.infrastructure.providers.anthropic.wire import message_to_wire, parse_message, tools_to_wire
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.session_base import ProviderSession, Wire

_NO_TOOLS = {"type": "none"}


class AnthropicMessagesSession(ProviderSession):
    """A conversation over ``POST /v1/messages``.

    Tools go out with ``input_schema``; results as a user message of ``tool_result`` blocks with
    ``is_error`` set for failures and rejections; streaming uses the raw SSE event stream.

    Args:
        client: returns the ``AsyncAnthropic`` client for the running event loop.
        model: the model name.
        system_prompt: sent as ``system`` with every request, when given.
        history: a neutral conversation to continue.
        errors: translates SDK exceptions.
        sdk: the ``anthropic`` module.
        max_tokens: the output cap of each response (required by the API).
        timeout: passed with each request; an explicit timeout also stops the SDK from refusing
            large ``max_tokens`` without streaming.
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
        max_tokens: int,
        timeout: Any,
    ) -> None:
        self._client = client
        self._max_tokens = max_tokens
        self._timeout = timeout
        super().__init__(model=model, system_prompt=system_prompt, history=history, errors=errors, sdk=sdk)

    def _message_to_wire(self, message: Message) -> list[Wire]:
        return message_to_wire(message)

    def _tools_to_wire(self, tools: ToolSchemas) -> list[Wire]:
        return tools_to_wire(tools)

    def _request(self, tools: list[Wire] | None, tools_allowed: bool) -> dict[str, Any]:
        request: dict[str, Any] = {
            "model": self._model,
            "max_tokens": self._max_tokens,
            "messages": self._wire,
        }
        if self._system_prompt:
            request["system"] = self._system_prompt
        if tools:
            request["tools"] = tools
            if not tools_allowed:
                request["tool_choice"] = _NO_TOOLS
        return request

    def _open(self, request: dict[str, Any], *, stream: bool) -> AbstractAsyncContextManager[Any]:
        create = self._client().messages.with_streaming_response.create
        if stream:
            return create(**request, stream=True, timeout=self._timeout)
        return create(**request, timeout=self._timeout)

    def _parse(self, body: dict[str, Any]) -> LlmResponse:
        return parse_message(body)

    def _accumulator(self) -> MessageStreamAccumulator:
        return MessageStreamAccumulator(self._errors)
