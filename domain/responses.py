"""What a model returns for one request: content blocks, a stop reason and token usage."""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from quorum.domain.tools import ToolCall


class TextBlock(BaseModel):
    """Text the model wrote."""

    model_config = ConfigDict(frozen=True)

    type: Literal["text"] = "text"
    text: str


ReasoningLevel = Literal["off", "low", "medium", "high"]
"""How much a model reasons before answering (``[agent] reasoning``); each provider maps it to its API."""


class ReasoningBlock(BaseModel):
    """The model's reasoning, kept exactly as its API returned it, to be sent back unchanged.

    Opaque to everything but the adapter of the API that produced it: an Anthropic ``thinking``
    block (text and signature) or ``redacted_thinking`` block (data), and later, say, an OpenAI
    Responses ``reasoning`` item (encrypted content). Adapters of other APIs do not send it.

    Attributes:
        api: the API whose adapter reads ``wire`` (``anthropic`` for the Messages API).
        wire: the block as received, sent back as is (its strings are never changed).
        text: the readable reasoning, for people; empty when the provider sends none (redacted,
            encrypted). Never part of the answer.
    """

    model_config = ConfigDict(frozen=True)

    type: Literal["reasoning"] = "reasoning"
    api: str
    wire: dict[str, Any]
    text: str = ""


ContentBlock = Annotated[TextBlock | ToolCall | ReasoningBlock, Field(discriminator="type")]
"""What a response holds: text, the calls the model asks for (``ToolCall``) and its kept reasoning."""


class StopReason(BaseModel):
    """Why the model stopped: end_turn, tool_use, max_tokens, or other (with the provider's word)."""

    model_config = ConfigDict(frozen=True)

    kind: Literal["end_turn", "tool_use", "max_tokens", "other"]
    raw: str | None = None

    @classmethod
    def end_turn(cls) -> StopReason:
        return _END_TURN

    @classmethod
    def tool_use(cls) -> StopReason:
        return _TOOL_USE

    @classmethod
    def max_tokens(cls) -> StopReason:
        return _MAX_TOKENS

    @classmethod
    def other(cls, raw: str) -> StopReason:
        return cls(kind="other", raw=raw)


_END_TURN = StopReason(kind="end_turn")
_TOOL_USE = StopReason(kind="tool_use")
_MAX_TOKENS = StopReason(kind="max_tokens")


class Usage(BaseModel):
    """Token counts; ``a + b`` sums them.

    ``input_tokens`` is every input token of the request, cached or not; ``cache_read_input_tokens``
    (read from the provider's prompt cache) and ``cache_write_input_tokens`` (written to it) are
    the parts of it billed at their own prices, so both are already counted in ``input_tokens``.
    """

    model_config = ConfigDict(frozen=True)

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_input_tokens: int = 0
    cache_write_input_tokens: int = 0

    @property
    def total_tokens(self) -> int:
        return self.input_tokens + self.output_tokens

    @property
    def uncached_input_tokens(self) -> int:
        """The input tokens neither read from nor written to a cache (billed at the input price)."""
        return max(0, self.input_tokens - self.cache_read_input_tokens - self.cache_write_input_tokens)

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            input_tokens=self.input_tokens + other.input_tokens,
            output_tokens=self.output_tokens + other.output_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens + other.cache_read_input_tokens,
            cache_write_input_tokens=self.cache_write_input_tokens + other.cache_write_input_tokens,
        )

    def agent_part(self) -> Usage:
        """These counts as a plain ``Usage`` (a ``RunUsage``'s agent part, without the reviewers')."""
        return Usage(
            input_tokens=self.input_tokens,
            output_tokens=self.output_tokens,
            cache_read_input_tokens=self.cache_read_input_tokens,
            cache_write_input_tokens=self.cache_write_input_tokens,
        )


class RunUsage(Usage):
    """A run's tokens: the agent model's and, apart, its reviewer models'.

    ``input_tokens``/``output_tokens`` (and the cache parts of the input) are the agent's own (MCP
    servers' sampling requests included: they spend on the run's behalf); ``reviewer_input_tokens``
    and ``reviewer_output_tokens`` what the reviewer models spent voting.
    """

    reviewer_input_tokens: int = 0
    reviewer_output_tokens: int = 0

    @classmethod
    def of(cls, agent: Usage, reviewers: Usage) -> RunUsage:
        """The run's usage from the agent's and the reviewers' totals."""
        return cls(
            input_tokens=agent.input_tokens,
            output_tokens=agent.output_tokens,
            cache_read_input_tokens=agent.cache_read_input_tokens,
            cache_write_input_tokens=agent.cache_write_input_tokens,
            reviewer_input_tokens=reviewers.input_tokens,
            reviewer_output_tokens=reviewers.output_tokens,
        )

    @property
    def reviewers(self) -> Usage:
        """The reviewer models' tokens as a plain ``Usage``."""
        return Usage(input_tokens=self.reviewer_input_tokens, output_tokens=self.reviewer_output_tokens)


class LlmResponse(BaseModel):
    """One complete model response, provider-neutral."""

    model_config = ConfigDict(frozen=True)

    content: tuple[ContentBlock, ...] = ()
    stop_reason: StopReason = _END_TURN
    model: str | None = None
    usage: Usage = Usage()

    @classmethod
    def from_text(cls, text: str, **kwargs: Any) -> LlmResponse:
        """A text-only response."""
        return cls(content=(TextBlock(text=text),), **kwargs)

    def text_content(self) -> str:
        """The text blocks joined, in order."""
        return "".join(b.text for b in self.content if isinstance(b, TextBlock))

    def reasoning(self) -> list[ReasoningBlock]:
        """The kept reasoning blocks, in order."""
        return [b for b in self.content if isinstance(b, ReasoningBlock)]

    def tool_calls(self) -> list[ToolCall]:
        """The calls, in the order the model emitted them."""
        return [b for b in self.content if isinstance(b, ToolCall)]

    def has_tool_calls(self) -> bool:
        """Whether the model asked for at least one tool call."""
        return any(isinstance(b, ToolCall) for b in self.content)
