"""Messages as the GenAI conventions record them (``gen_ai.input.messages`` and its kin), redacted.

Only used when content capture is on. The shape is the conventions' JSON: a list of
``{"role", "parts": [{"type": "text", "content"}, {"type": "tool_call", "id", "name", "arguments"},
{"type": "tool_call_response", "id", "response"}]}`` (``finish_reason`` on output messages).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from quorum.domain.messages import Message
from quorum.domain.responses import TextBlock
from quorum.domain.tools import ToolCall, ToolResult

Redact = Callable[[str], str]


def messages_json(
    messages: Sequence[Message] | None, redact: Redact, *, system: str | None = None, finish: str | None = None
) -> str:
    """``messages`` (or, with ``system``, the system instructions' parts) as redacted JSON text."""
    if system is not None:
        return _dump([{"type": "text", "content": system}], redact)
    shown = []
    for message in messages or ():
        entry: dict[str, Any] = {"role": message.role, "parts": [_part(block) for block in message.content]}
        if finish is not None:
            entry["finish_reason"] = finish
        shown.append(entry)
    return _dump(shown, redact)


def arguments_json(call: ToolCall, redact: Redact) -> str:
    """A call's arguments (or the text the provider sent when it was not a JSON object), redacted."""
    if call.arguments_error is not None:
        return redact(call.raw_arguments or "")
    return _dump(call.arguments, redact)


def _part(block: Any) -> dict[str, Any]:
    if isinstance(block, TextBlock):
        return {"type": "text", "content": block.text}
    if isinstance(block, ToolCall):
        return {"type": "tool_call", "id": block.native_id, "name": block.name, "arguments": block.arguments}
    if isinstance(block, ToolResult):
        return {"type": "tool_call_response", "id": block.call_id, "response": block.output}
    return {"type": getattr(block, "type", "unknown")}  # e.g. reasoning: its kind only


def _dump(value: Any, redact: Redact) -> str:
    # Each string is redacted before serialising (a secret holding a quote would be escaped past
    # the redactor's eyes), then the text once more (a secret split across keys and values).
    return redact(json.dumps(_scrub(value, redact), ensure_ascii=False, default=str))


def _scrub(value: Any, redact: Redact) -> Any:
    if isinstance(value, str):
        return redact(value)
    if isinstance(value, dict):
        return {redact(str(key)): _scrub(item, redact) for key, item in value.items()}
    if isinstance(value, list | tuple):
        return [_scrub(item, redact) for item in value]
    return value
