"""Ports to language models: a gateway that opens sessions, and the session that talks."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, ReasoningLevel, TextBlock
from quorum.domain.streaming import StreamEvent
from quorum.domain.tools import ImagePart, ToolResult

ToolSchemas = Sequence[dict[str, Any]]
"""Provider-neutral tool schemas from a ToolSchemaPort: ``{"name", "description", "input_schema"}``."""


@dataclass(frozen=True)
class TurnInput:
    """What one request sends: the user's text, or the results of the last response's calls.

    Attributes:
        text: user text (a task, a chat line); unused when ``results`` are sent.
        results: the results of every call of the last response, in the model's emission order.
        tools: the tools offered; None asks for an answer without tools (adapters keep the
            definitions in the request where the API needs them beside a history of calls).
        note: user text after the results (the turn-limit note).
        images: images sent with ``text`` as image input (a task's ``RunRequest.task_images``).
        reasoning: how much the model reasons before answering; each adapter maps it to its API
            (``off`` sends nothing). Sessions of APIs without reasoning ignore it.
        answer_schema: the JSON Schema (its root an object) a final answer, a reply without tool
            calls, must match; each adapter asks for it as its API can (structured output, or a
            ``final_answer`` tool whose call becomes the reply's text; decision 260). None: free text.

    Raises:
        ValueError: both ``text`` and ``results`` are given.
    """

    text: str = ""
    results: tuple[ToolResult, ...] = ()
    tools: ToolSchemas | None = None
    note: str | None = None
    images: tuple[ImagePart, ...] = ()
    reasoning: ReasoningLevel = "off"
    answer_schema: dict[str, Any] | None = None

    def __post_init__(self) -> None:
        if (self.text or self.images) and self.results:
            raise ValueError("a turn sends the user's text or tool results, not both")

    @classmethod
    def user(cls, text: str, tools: ToolSchemas | None = None, images: Sequence[ImagePart] = ()) -> TurnInput:
        """User text (and ``images``), offering ``tools`` (None: no tools)."""
        return cls(text=text, tools=tools, images=tuple(images))

    @classmethod
    def answering(
        cls, results: Sequence[ToolResult], tools: ToolSchemas | None, *, note: str | None = None
    ) -> TurnInput:
        """The results of the last response's calls, then ``note``; ``tools=None`` asks for an answer without tools."""
        return cls(results=tuple(results), tools=tools, note=note)

    def message(self) -> Message:
        """The user message this turn adds to a history (made once: the context estimate and the session both ask)."""
        made: Message | None = self.__dict__.get("_message")
        if made is None:
            made = self._make_message()
            object.__setattr__(self, "_message", made)  # a cache beside the fields: not compared, not copied
        return made

    def _make_message(self) -> Message:
        blocks: list[Any] = [r.for_model() for r in self.results]
        if not self.results and (self.text or not self.note):
            blocks.append(TextBlock(text=self.text))
        blocks.extend(self.images)
        if self.note:
            blocks.append(TextBlock(text=self.note))
        return Message(role="user", content=tuple(blocks))


def results_message(results: Sequence[ToolResult]) -> Message | None:
    """The user message recording ``results`` without a request (None when there are none)."""
    return TurnInput.answering(results, None).message() if results else None


@runtime_checkable
class LlmSession(Protocol):
    """A conversation with one model; it keeps its own history between calls.

    Five members: the model, the history, one request and its streamed twin (the shape of
    pydantic-ai's ``request``/``request_stream``), and ``record``. ``record`` stays apart because
    a run that stops (cancelled, timed out, out of budget) must answer its open calls without a
    request, synchronously, even while being cancelled, so the history stays valid.
    """

    @property
    def model(self) -> str:
        """The model name as the provider knows it."""
        ...

    def history(self) -> list[Message]:
        """The conversation so far, provider-neutral (without the system prompt)."""
        ...

    async def request(self, turn: TurnInput) -> LlmResponse:
        """Send ``turn`` and return the model's response, which joins the history.

        The turn's message joins the history before the request is made, so a failed or
        cancelled request never leaves a tool call without its result.

        Raises:
            ProviderError: after the SDK's own retries.
        """
        ...

    def request_stream(self, turn: TurnInput) -> AsyncIterator[StreamEvent]:
        """Streaming form of ``request``; the turn's message joins the history at once.

        An async generator of text and tool-call deltas as they arrive and, last, exactly one
        ``StreamCompleted`` whose response equals what ``request`` returns.
        """
        ...

    def record(self, results: Sequence[ToolResult]) -> None:
        """Append results to the history without a request (a run stopping keeps history valid)."""
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
