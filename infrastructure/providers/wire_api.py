"""What one provider API's adapter supplies: its wire mapping, and nothing else.

Everything an SDK-backed provider does besides speaking its API's wire format is written once, in
this family of modules: the settings every kind has (``settings_base``), the client per event loop,
the key and the retry policy (``gateway_base``), the session's history and its request and stream
mechanics (``session_base``), error translation (``errors``, ``retry_after``) and the bounded
reading of bodies and events (``http_body``). A ``WireApi`` is the rest, per API:

- which SDK, which client class of it, the default endpoint and the variable overriding it;
- how a neutral message and the tool schemas become wire items (``message_to_wire``,
  ``tools_to_wire``, and ``initial_wire`` for what precedes the history);
- the keyword arguments of one create call (``request``), what asks for reasoning in it
  (``with_reasoning``) and for an answer matching a JSON Schema (``with_answer_schema``, and
  ``answer_of`` when the answer comes back as a tool call), and the SDK call that makes it (``open``);
- how a JSON body becomes an ``LlmResponse`` (``parse``), and a stream one (``accumulator``).

A new API (the Responses API, say) is a ``WireApi`` subclass in its own wire module, a settings
class when it has fields of its own, and a gateway class naming it, registered by a plugin
(``openai/plugin.py`` shows the whole registration). The helpers below are shared by the wire
modules: matching tool calls to results by unique ids, decoding argument text, building the response.
"""

from __future__ import annotations

import json
from abc import ABC, abstractmethod
from collections.abc import Sequence
from contextlib import AbstractAsyncContextManager
from typing import TYPE_CHECKING, Any, ClassVar, Generic, Protocol, TypeVar

from quorum.domain.responses import ContentBlock, LlmResponse, ReasoningLevel, StopReason, Usage
from quorum.domain.tools import ToolCall
from quorum.infrastructure.providers.http_body import MalformedResponse
from quorum.infrastructure.providers.settings_base import SdkProviderSettings

if TYPE_CHECKING:
    from quorum.application.ports.llm import ToolSchemas
    from quorum.domain.messages import Message
    from quorum.domain.streaming import StreamEvent
    from quorum.infrastructure.providers.errors import ErrorTranslator
    from quorum.infrastructure.providers.http_body import SseEvent

Wire = dict[str, Any]
"""One item of a request as the SDK sends it (a message, a tool, a content block)."""

S = TypeVar("S", bound=SdkProviderSettings)


class StreamAccumulator(Protocol):
    """Turns the raw events of one streamed response into deltas, then into the final response."""

    @property
    def done(self) -> bool:
        """The final event arrived; the stream is not read further."""
        ...

    def feed(self, event: SseEvent) -> list[StreamEvent]:
        """Deltas carried by one event (often none). Raises MalformedResponse or ErrorReply."""
        ...

    def finish(self) -> LlmResponse:
        """The complete response. Raises ProviderError when the stream ended early."""
        ...


class WireApi(ABC, Generic[S]):
    """One HTTP API of a provider, as the session and the gateway use it. Holds no connection.

    Made by the gateway from its instance's settings, once; cheap, and imports no SDK.

    Args:
        settings: the instance's validated section.
        custom_endpoint: a ``base_url`` was configured (a compatible server rather than the vendor's).

    Attributes:
        sdk: the SDK's module name (imported by the gateway on a session's first need).
        client_class: the SDK's async client class; both SDKs take the same constructor arguments.
        base_url_env: the variable that overrides the SDK's default endpoint.
        default_base_url: the SDK's default endpoint, as messages show it.
    """

    sdk: ClassVar[str]
    client_class: ClassVar[str]
    base_url_env: ClassVar[str]
    default_base_url: ClassVar[str]

    def __init__(self, settings: S, *, custom_endpoint: bool) -> None:
        self.settings = settings
        self.custom_endpoint = custom_endpoint

    def initial_wire(self, system_prompt: str | None) -> list[Wire]:
        """Wire messages before any history (Chat Completions puts the system prompt there)."""
        return []

    @abstractmethod
    def message_to_wire(self, message: Message) -> list[Wire]:
        """The wire messages for one neutral message (possibly none, possibly several)."""

    @abstractmethod
    def tools_to_wire(self, tools: ToolSchemas) -> list[Wire]:
        """Neutral tool schemas in the API's shape."""

    @abstractmethod
    def request(
        self, model: str, system_prompt: str | None, messages: list[Wire], tools: list[Wire] | None, tools_allowed: bool
    ) -> dict[str, Any]:
        """The keyword arguments of one create call; ``tools_allowed=False`` forbids tool use."""

    def with_reasoning(self, request: dict[str, Any], level: ReasoningLevel) -> dict[str, Any]:
        """``request`` asking for ``level`` of reasoning; an API without reasoning returns it unchanged."""
        return request

    def with_answer_schema(self, request: dict[str, Any], schema: dict[str, Any]) -> dict[str, Any]:
        """``request`` asking for a final answer matching ``schema`` (its root an object; decision 260).

        The base asks nothing: the system prompt says the schema in words and the loop checks the
        answer. An API with structured output asks for it; one without offers a ``final_answer``
        tool and turns its call back into the answer's text (``answer_of``).
        """
        return request

    def answer_of(self, response: LlmResponse) -> LlmResponse:
        """``response`` to a request that asked for ``schema``: a ``final_answer`` call made the answer's text."""
        return response

    @abstractmethod
    def open(self, client: Any, request: dict[str, Any], *, stream: bool) -> AbstractAsyncContextManager[Any]:
        """The SDK's ``with_streaming_response`` create call: entered, it holds a response whose body is unread.

        The SDK makes the request, retries and raises status errors; the session reads the body
        (``http_body``), bounded and checked, because the SDK trusts whatever arrives.
        """

    @abstractmethod
    def parse(self, body: dict[str, Any]) -> LlmResponse:
        """A non-streamed JSON body as a response. Raises MalformedResponse or ErrorReply."""

    @abstractmethod
    def accumulator(self, errors: ErrorTranslator) -> StreamAccumulator:
        """A fresh accumulator for one streamed response."""


def response(content: Sequence[ContentBlock], stop: StopReason, model: str | None, usage: Usage) -> LlmResponse:
    """The neutral response of a plain or a streamed reply, so both paths agree exactly.

    Raises:
        MalformedResponse: two calls share an id (their results could not be told apart).
    """
    require_unique_ids([block for block in content if isinstance(block, ToolCall)])
    return LlmResponse(content=tuple(content), stop_reason=stop, model=model or None, usage=usage)


FINAL_ANSWER = "final_answer"
"""The tool an API without structured output offers for a final answer matching a JSON Schema."""

FINAL_ANSWER_DESCRIPTION = (
    "Give your final answer, once the task is done: its parameters are the answer, a JSON document "
    "matching the required schema. Call it alone, as your last step."
)


def final_answer_tool(schema: dict[str, Any]) -> dict[str, Any]:
    """The neutral schema of the ``final_answer`` tool for an answer matching ``schema``."""
    return {"name": FINAL_ANSWER, "description": FINAL_ANSWER_DESCRIPTION, "input_schema": schema}


def final_answer_as_text(response: LlmResponse) -> LlmResponse:
    """``response`` with its ``final_answer`` call, if any, replaced by a text block holding its arguments.

    Arguments that were not a JSON object stay as the model sent them, so the loop's check says
    what is wrong with them.
    """
    from quorum.domain.responses import TextBlock

    content: list[ContentBlock] = []
    for block in response.content:
        if isinstance(block, ToolCall) and block.name == FINAL_ANSWER:
            text = block.raw_arguments if block.arguments_error is not None else json.dumps(dict(block.arguments))
            content.append(TextBlock(text=text or ""))
        else:
            content.append(block)
    if len(content) == len(response.content) and all(a is b for a, b in zip(content, response.content, strict=True)):
        return response
    return response.model_copy(update={"content": tuple(content)})


def require_unique_ids(calls: Sequence[ToolCall]) -> None:
    """Raise MalformedResponse when two tool calls share an id: results are matched by id."""
    seen: set[str] = set()
    for call in calls:
        if call.native_id in seen:
            raise MalformedResponse(f"the tool call id {call.native_id!r} appears more than once")
        seen.add(call.native_id)


def decode_arguments(text: str) -> tuple[dict[str, Any], str | None, str | None]:
    """Parse a tool call's argument text: ``(input, input_error, raw_input)``.

    Empty text means no arguments (some servers send ``""`` for parameterless tools). Text that is
    not a JSON object yields ``({}, reason, text)`` so the model can be told and correct itself.
    """
    if not text.strip():
        return {}, None, None
    try:
        value = json.loads(text)
    except ValueError as error:
        return {}, f"the arguments are not valid JSON: {error}", text
    except RecursionError:  # json.loads recurses per nesting level: ~1,000 levels exhaust the stack
        return {}, "the arguments are nested too deeply to read", text
    if not isinstance(value, dict):
        return {}, f"the arguments must be a JSON object, got {type(value).__name__}", text
    return value, None, None
