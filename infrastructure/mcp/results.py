"""MCP tool results turned into tool outcomes the model can read.

Duck-typed over the ``mcp.types`` content blocks, so this module never imports the SDK.
"""

from __future__ import annotations

import base64
import binascii
import json
from typing import Any

from quorum.application.ports.tool_executor import ToolOutcome


def _decoded_size(data: str | None) -> int:
    if not data:
        return 0
    try:
        return len(base64.b64decode(data, validate=False))
    except (binascii.Error, ValueError):
        return len(data) * 3 // 4


def _block_text(block: Any) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind in ("image", "audio"):
        mime = getattr(block, "mime_type", None) or "unknown type"
        return f"[{kind}: {mime}, {_decoded_size(getattr(block, 'data', None))} bytes]"
    if kind == "resource":
        resource = getattr(block, "resource", None)
        uri = getattr(resource, "uri", "?")
        mime = getattr(resource, "mime_type", None) or "unknown type"
        text = getattr(resource, "text", None)
        size = len(text.encode("utf-8")) if isinstance(text, str) else _decoded_size(getattr(resource, "blob", None))
        return f"[resource {uri}: {mime}, {size} bytes]"
    if kind == "resource_link":
        mime = getattr(block, "mime_type", None) or "unknown type"
        link_size = getattr(block, "size", None)
        return f"[resource link {getattr(block, 'uri', '?')}: {mime}" + (f", {link_size} bytes]" if link_size else "]")
    return f"[{kind or 'unknown'} content]"


def outcome_from_result(result: Any) -> ToolOutcome:
    """A ``CallToolResult`` as a ``ToolOutcome``.

    Text blocks are joined with newlines; images, audio and resources become placeholders naming
    their mime type and size; structured content is shown as JSON when no text came with it
    (servers that return both put the same facts in the text). ``isError`` makes an error result.
    """
    parts = [_block_text(b) for b in getattr(result, "content", None) or ()]
    structured = getattr(result, "structured_content", None)
    has_text = any(getattr(b, "type", None) == "text" for b in getattr(result, "content", None) or ())
    if structured is not None and not has_text:
        parts.append(json.dumps(structured, ensure_ascii=False, sort_keys=True, default=str))
    output = "\n".join(parts) if parts else "(no output)"
    return ToolOutcome(output=output, is_error=bool(getattr(result, "is_error", False)))
