"""The Responses API reply shapes Quorum reads, validated strictly (the SDK validates nothing).

Only the fields Quorum uses are declared; others are ignored. Output items of a type Quorum does
not use (a web search call, say) are kept as plain objects and skipped by the wire module.
"""

from __future__ import annotations

from typing import Any

from pydantic import Field

from quorum.infrastructure.providers.http_body import Shape


class InputDetails(Shape):
    """What the input count includes: ``cached_tokens`` were read from the provider's prompt cache."""

    cached_tokens: int | None = None


class Usage(Shape):
    """Token counts of one response."""

    input_tokens: int | None = None
    output_tokens: int | None = None
    input_tokens_details: InputDetails | None = None


class IncompleteDetails(Shape):
    """Why a response stopped before it was complete (``max_output_tokens``, ``content_filter``)."""

    reason: str | None = None


class Response(Shape):
    """A ``response`` object: its status, its output items and usage."""

    model: str | None = None
    status: str | None = None
    output: list[dict[str, Any]] = Field(default_factory=list)
    usage: Usage | None = None
    incomplete_details: IncompleteDetails | None = None
    error: dict[str, Any] | None = None


class OutputText(Shape):
    """A part of an output message: ``output_text`` carries ``text``, ``refusal`` a ``refusal``."""

    type: str
    text: str | None = None
    refusal: str | None = None


class MessageItem(Shape):
    """An output ``message`` item."""

    content: list[OutputText] = Field(default_factory=list)


class FunctionCallItem(Shape):
    """An output ``function_call`` item: the model's ``call_id``, the name, the argument text."""

    call_id: str
    name: str
    arguments: str = ""
