"""A tool call written as text: an answer that is only a call block is never the run's answer.

Small models asked for a tool call sometimes write it as text instead of making it: a JSON object
naming a tool (bare or fenced), or the model family's own call syntax (``<tool_call>…</tool_call>``,
``[TOOL_CALLS]…``, ``<|python_tag|>…``). Taken as the final answer, the run "succeeds" with a
JSON block as its output. ``written_call`` recognises such a text; the execution phase answers it
once with a note asking for a real call, and never returns it as the output.
"""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

MARKERS = (
    re.compile(r"^```[a-zA-Z0-9_-]*\s*\n?(.*?)\n?```$", re.S),
    re.compile(r"^<tool_call>\s*(.*?)\s*(?:</tool_call>)?$", re.S),
    re.compile(r"^<\|python_tag\|>\s*(.*)$", re.S),
    re.compile(r"^\[TOOL_CALLS\]\s*(.*)$", re.S),
    re.compile(r"^<function_call>\s*(.*?)\s*(?:</function_call>)?$", re.S),
)
"""Wrappers around a call block: a fence, and the call syntaxes of common open model families."""

MAX_CHARS = 20_000
"""Longer texts are answers, whatever they contain (and are not parsed)."""


def written_call(text: str, tools: Collection[str]) -> str | None:
    """The tool named by ``text`` when ``text`` is nothing but a call block naming one of ``tools``; else None."""
    body = text.strip()
    if not body or len(body) > MAX_CHARS:
        return None
    for _ in range(3):  # a fence inside a tag, say
        for marker in MARKERS:
            if match := marker.match(body):
                body = match.group(1).strip()
                break
        else:
            break
    try:
        value = json.loads(body)
    except (ValueError, RecursionError):
        return None
    calls = value if isinstance(value, list) and value else [value]
    names = [_name(call) for call in calls]
    if not all(name in tools for name in names):
        return None
    return names[0]


def _name(call: Any) -> str | None:
    if not isinstance(call, dict):
        return None
    function = call.get("function")
    if isinstance(function, dict):
        call = function
    name = call.get("name") or call.get("tool") or call.get("tool_name")
    return name if isinstance(name, str) else None
