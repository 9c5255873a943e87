"""An MCP server's request for input from the person (``elicitation/create``, form mode) and the answer."""

from __future__ import annotations

from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field


class ElicitationRequest(BaseModel):
    """What a server asks: ``message`` for the person and the JSON schema of the answer's fields.

    ``requested_schema`` is a flat object schema (``properties`` of string, number, integer,
    boolean or enum type, ``required``), as MCP's form mode allows.
    """

    model_config = ConfigDict(frozen=True)

    server: str
    message: str
    requested_schema: dict[str, Any] = Field(default_factory=dict)


class ElicitationAnswer(BaseModel):
    """The answer: ``accept`` with ``content`` (field name → value), ``decline`` or ``cancel``."""

    model_config = ConfigDict(frozen=True)

    action: Literal["accept", "decline", "cancel"]
    content: dict[str, Any] = Field(default_factory=dict)
