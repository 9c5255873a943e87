"""Ports to language models: a gateway that opens sessions, and the session that talks."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol, runtime_checkable

from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse
from quorum.domain.streaming import StreamEvent
from quorum.domain.tools import ToolResultMessage

ToolSchemas = Sequence[dict[str, Any]]
"""Provider-neutral tool schemas from a ToolSchemaPort: ``{"name", "description", "input_schema"}``."""


@runtime_checkable
class LlmSession(Protocol):
    """A conversation with one model; it keeps its own history between calls.

    Every method may raise ``ProviderError`` (after the SDK's own retries). The ``stream_*``
    methods are async generators yielding text and tool-call deltas as they arrive and, last,
    exactly one ``StreamCompleted`` whose response equals what the non-streaming method returns.
    A ``tools`` argument of ``None`` in ``send_tool_results`` asks the model to answer without
    calling tools (adapters keep definitions in the request where the API needs them).
    """

    @property
    def model(self) -> str:
        """The model name as the provider knows it."""
        ...

    async def send(self, content: str) -> LlmResponse:
        """Send user text with no tools offered."""
        ...

    def send_streaming(self, content: str) -> AsyncIterator[StreamEvent]:
        """Streaming form of ``send``."""
        ...

    async def send_with_tools(self, content: str, tools: ToolSchemas) -> LlmResponse:
        """Send user text and offer ``tools``."""
        ...

    def stream_with_tools(self, content: str, tools: ToolSchemas) -> AsyncIterator[StreamEvent]:
        """Streaming form of ``send_with_tools``."""
        ...

    async def send_tool_results(
        self,
        results: Sequence[ToolResultMessage],
        tools: ToolSchemas | None,
        *,
        note: str | None = None,
    ) -> LlmResponse:
        """Send the results of the last response's calls (``note``: user text after them).

        The results join the history before the request is made, so a failed or cancelled request
        never leaves a tool call without its result.
        """
        ...

    def stream_tool_results(
        self,
        results: Sequence[ToolResultMessage],
        tools: ToolSchemas | None,
        *,
        note: str | None = None,
    ) -> AsyncIterator[StreamEvent]:
        """Streaming form of ``send_tool_results``."""
        ...

    def record_tool_results(self, results: Sequence[ToolResultMessage]) -> None:
        """Append results to the history without a request (a run stopping keeps history valid)."""
        ...

    def history(self) -> list[Message]:
        """The conversation so far, provider-neutral."""
        ...


class LlmGateway(Protocol):
    """Opens sessions on models named ``provider:model``."""

    def session(
        self,
        model_id: str,
        system_prompt: str | None = None,
        *,
        history: Sequence[Message] = (),
    ) -> LlmSession:
        """A new session, optionally continuing ``history``.

        Raises:
            UsageError: unknown provider or malformed model id.
            ConfigurationError: the provider's configuration is incomplete (e.g. no API key).
        """
        ...
