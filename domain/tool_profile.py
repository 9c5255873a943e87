"""The lean tool profile: tools offered with short descriptions and only their required parameters.

A small model reads every token of the tool definitions on every request, and fills optional
parameters it does not need with noise (``max_results: 100``, ``cwd: "tests"``). The lean profile
offers each tool with its ``brief`` (or its description's first sentence) and only the parameters
it requires, without their descriptions (the brief says what they need); an optional one left out
keeps its default, and a call that passes one anyway is still checked against the tool's whole
schema. ``[agent] tools_profile`` chooses; unset, a model
whose context window is at most ``LEAN_WINDOW`` tokens gets the lean profile.
"""

from __future__ import annotations

import copy
import re
from typing import Any, Literal

from quorum.domain.tools import ToolDefinition

ToolsProfile = Literal["full", "lean"]

LEAN_WINDOW = 32_768
"""A model whose window is at most this many tokens gets the lean profile when none is configured."""

BRIEF_CHARS = 120
"""Longest description a lean tool is offered with (a first sentence longer than this is cut)."""

_SENTENCE = re.compile(r"(?<=[.!?])\s")


def choose(configured: ToolsProfile | None, window: int | None) -> ToolsProfile:
    """The profile of a run: the configured one, else lean for a small known window, else full."""
    if configured is not None:
        return configured
    return "lean" if window is not None and window <= LEAN_WINDOW else "full"


def first_sentence(text: str, limit: int = BRIEF_CHARS) -> str:
    """The first sentence of ``text``, at most ``limit`` characters (cut with ``…``)."""
    sentence = _SENTENCE.split(" ".join(text.split()), maxsplit=1)[0]
    return sentence if len(sentence) <= limit else sentence[: limit - 1].rstrip() + "…"


def lean(tool: ToolDefinition) -> ToolDefinition:
    """``tool`` as the lean profile offers it: its brief, its required parameters only."""
    brief = tool.brief or first_sentence(tool.description)
    if tool.input_schema is not None:
        return tool.model_copy(update={"description": brief, "input_schema": _required_only(tool.input_schema)})
    parameters = tuple(p.model_copy(update={"description": ""}) for p in tool.parameters if p.required)
    return tool.model_copy(update={"description": brief, "parameters": parameters})


def _required_only(schema: dict[str, Any]) -> dict[str, Any]:
    """An object schema keeping only its required properties, their descriptions cut to a first sentence."""
    properties = schema.get("properties")
    if not isinstance(properties, dict):
        return schema
    listed = schema.get("required")
    required: list[Any] = listed if isinstance(listed, list) else []
    kept: dict[str, Any] = {}
    for name, value in properties.items():
        if name not in required:
            continue
        kept[name] = copy.deepcopy(value)
        if isinstance(value, dict) and isinstance(value.get("description"), str):
            kept[name]["description"] = first_sentence(value["description"], 60)
    return {**schema, "properties": kept}
