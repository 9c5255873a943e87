"""MCP tool results and resource contents turned into tool outcomes the model can read.

Duck-typed over the ``mcp.types`` content blocks, so this module never imports the SDK. What the
model gets for each kind of block:

- text: the text;
- image: a part sent as image input (PNG, JPEG, GIF, WebP, checked by its bytes), named in the
  text as ``[image: image/png, 4 KB]``; other images are described;
- audio: described (no provider takes audio in tool results);
- embedded resource: its text inlined under a ``[resource URI (mime)]`` header; a blob is an image
  part when it is an image, inlined when its type is textual and it decodes as UTF-8, else
  described;
- resource link: name, title, description, URI, type and size, with how to read it
  (``mcp_read_resource``);
- structured content: kept as JSON, unless the content already carries it: a text block with
  the same JSON (what the spec asks servers to send for compatibility), the text wrapped under one
  key (``{"content": "<the text>"}``, ``{"result": ...}``), or the content blocks themselves
  (``{"content": [<the blocks>]}``). Base64 inside it is replaced by a description: it never
  reaches the model as text.

The executor then applies ``[tools] images`` and the output cap, and removes base64 that is
still in the text (``infrastructure.tools.images``).
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from quorum.domain.tools import ImagePart, ToolResult, human_size
from quorum.infrastructure.tools.images import decode_base64, image_part

READ_TOOL = "mcp_read_resource"
"""The built-in tool that reads a resource of a server (see ``resources``)."""


def outcome_from_result(result: Any, *, server: str | None = None) -> ToolResult:
    """A ``CallToolResult`` as a ``ToolResult``; ``server`` names the server in reading hints.

    ``isError`` makes an error result.
    """
    blocks = list(getattr(result, "content", None) or ())
    parts: list[str] = []
    images: list[ImagePart] = []
    for block in blocks:
        parts.append(_block_text(block, images))
    if any(getattr(b, "type", None) == "resource_link" for b in blocks):
        parts.append(_reading_hint(server))
    structured = getattr(result, "structured_content", None)
    if structured is not None and not _text_repeats(blocks, structured) and not _blocks_repeat(blocks, structured):
        parts.append("structured content: " + _json(_without_base64(structured)))
    output = "\n".join(parts) if parts else "(no output)"
    return ToolResult(output=output, is_error=bool(getattr(result, "is_error", False)), images=tuple(images))


def outcome_from_contents(contents: Iterable[Any]) -> ToolResult:
    """The ``contents`` of a ``ReadResourceResult`` as a ``ToolResult`` (text, images, blobs described)."""
    images: list[ImagePart] = []
    parts = [_resource_text(item, images) for item in contents]
    return ToolResult(output="\n".join(parts) if parts else "(the resource is empty)", images=tuple(images))


def _block_text(block: Any, images: list[ImagePart]) -> str:
    kind = getattr(block, "type", None)
    if kind == "text":
        return str(getattr(block, "text", ""))
    if kind == "image":
        part, description = image_part(str(getattr(block, "data", "") or ""), getattr(block, "mime_type", None))
        if part is not None:
            images.append(part)
        return description
    if kind == "audio":
        mime = getattr(block, "mime_type", None) or "unknown type"
        return f"[audio: {mime}, {_size(getattr(block, 'data', None))}, not shown: models take no audio here]"
    if kind == "resource":
        return _resource_text(getattr(block, "resource", None), images)
    if kind == "resource_link":
        return _link_text(block)
    return f"[{kind or 'unknown'} content, not shown]"


def _resource_text(resource: Any, images: list[ImagePart]) -> str:
    """One resource's contents: text inlined under a header, an image as a part, a blob described."""
    uri = getattr(resource, "uri", "?")
    mime = getattr(resource, "mime_type", None)
    text = getattr(resource, "text", None)
    if isinstance(text, str):
        return f"[resource {uri}{f' ({mime})' if mime else ''}]\n{text}"
    blob = str(getattr(resource, "blob", "") or "")
    if (mime or "").startswith("image/"):
        part, description = image_part(blob, mime)
        if part is not None:
            images.append(part)
        return f"[resource {uri}] {description}"
    raw = decode_base64(blob)
    if raw is not None and _textual(mime):
        try:
            return f"[resource {uri} ({mime})]\n{raw.decode('utf-8')}"
        except UnicodeDecodeError:
            pass  # declared text, but it is not: described below
    return f"[resource {uri}: {mime or 'unknown type'}, {_size(blob)} of binary data, not shown]"


def _textual(mime: str | None) -> bool:
    """Whether a blob of this type is text a model can read (``text/*``, JSON, XML, YAML)."""
    kind = (mime or "").split(";")[0].strip().lower()
    return kind.startswith("text/") or kind.endswith(("/json", "+json", "/xml", "+xml", "/yaml", "/x-yaml"))


def _link_text(link: Any) -> str:
    name = getattr(link, "name", None) or "?"
    title = getattr(link, "title", None)
    description = getattr(link, "description", None)
    facts = [getattr(link, "mime_type", None)]
    size = getattr(link, "size", None)
    if isinstance(size, int):
        facts.append(human_size(size))
    header = name + (f" ({title})" if title and title != name else "")
    about = f": {description}" if description else ""
    details = ", ".join(f for f in facts if f)
    return f"[resource link {header}{about} <{getattr(link, 'uri', '?')}>" + (f" {details}]" if details else "]")


def _reading_hint(server: str | None) -> str:
    where = f'server="{server}", ' if server else ""
    return f"(linked resources can be read with {READ_TOOL}({where}uri=...))"


def _text_repeats(blocks: list[Any], structured: Any) -> bool:
    """Whether the text blocks carry ``structured`` already.

    Either as JSON, or wrapped under one key: the ``{"result": ...}`` SDK servers put around a
    plain value, or server-filesystem's ``{"content": "<the text>"}``.
    """
    texts = [str(getattr(b, "text", "")) for b in blocks if getattr(b, "type", None) == "text"]
    if isinstance(structured, dict) and len(structured) == 1 and texts:
        (wrapped,) = structured.values()
        if wrapped == "\n".join(texts) or (len(texts) == 1 and _parsed(texts[0]) == wrapped):
            return True
    return any(_parsed(text) == structured for text in texts)


def _blocks_repeat(blocks: list[Any], structured: Any) -> bool:
    """Whether ``structured`` is the content blocks themselves under one key (``{"content": [...]}``)."""
    if not blocks or not isinstance(structured, dict) or len(structured) != 1:
        return False
    (wrapped,) = structured.values()
    if not isinstance(wrapped, list) or len(wrapped) != len(blocks):
        return False
    dumped = [
        b.model_dump(by_alias=True, mode="json", exclude_none=True) if hasattr(b, "model_dump") else b for b in blocks
    ]
    return _json(dumped) == _json(wrapped)


_BINARY_KEYS = frozenset({"data", "blob"})
_MIN_BARE_BASE64 = 64
"""A ``data``/``blob`` string this long that decodes as base64 is binary even without a ``mimeType``."""


def _without_base64(value: Any, key: str | None = None, mime: str | None = None) -> Any:
    """``value`` (structured content) with base64 payloads replaced by a short description.

    Replaced: ``data``/``blob`` strings that decode as base64 (beside a ``mimeType``, or long), and
    ``data:`` URIs with a base64 payload. Images are not sent from here: the content blocks carry them.
    """
    if isinstance(value, dict):
        kind = value.get("mimeType") or value.get("mime_type")
        kind = kind if isinstance(kind, str) else None
        return {k: _without_base64(v, k, kind) for k, v in value.items()}
    if isinstance(value, list):
        return [_without_base64(v, key, mime) for v in value]
    if not isinstance(value, str):
        return value
    if value.startswith("data:") and ";base64," in value[:200]:
        mime = value[5:].split(";", 1)[0] or mime
        return f"[base64 data: {mime or 'unknown type'}, {_size(value.split(',', 1)[1])}, not shown]"
    binary = key in _BINARY_KEYS and (mime is not None or len(value) >= _MIN_BARE_BASE64)
    if binary and decode_base64(value) is not None:
        return f"[base64 data: {mime or 'unknown type'}, {_size(value)}, not shown]"
    return value


def _parsed(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):
        return _NOT_JSON


_NOT_JSON = object()


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def _size(data: Any) -> str:
    if not data:
        return human_size(0)
    raw = decode_base64(str(data))
    return human_size(len(raw)) if raw is not None else human_size(len(str(data)) * 3 // 4)
