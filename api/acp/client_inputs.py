"""What the client sends, in Quorum's terms: its MCP servers as ``[mcp.servers]`` tables, a prompt as a task.

Client MCP servers join the configured ones through the configuration (the last layer), so they
get the same risk rules, pins, redaction and lifecycle as servers in ``quorum.toml``. A client
server whose name a configured server already has is renamed (``NAME-client``): merged, the two
tables would mix one server's command with the other's settings.

A prompt becomes the run's task: its text blocks, then a line per resource link (a ``file://``
link inside the workspace shown as its workspace path, so the model can read it with its tools)
and the text of embedded text resources. Image blocks (base64 data of an ``IMAGE_MEDIA_TYPES`` type)
become the run's task images, sent to the model as image input.
"""

from __future__ import annotations

import base64
import binascii
import re
from collections.abc import Iterable
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

from quorum.domain.errors import ToolRefusedError, UsageError
from quorum.domain.tools import IMAGE_MEDIA_TYPES, ImagePart
from quorum.infrastructure.tools.workspace import Workspace

_NAME = re.compile(r"[^A-Za-z0-9_-]+")


def server_tables(servers: Iterable[Any], configured: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``[mcp.servers.NAME]`` tables for the client's servers (stdio and HTTP).

    Raises:
        UsageError: an SSE server (``mcpCapabilities.sse`` is false) or one of an unknown kind.
    """
    taken = set(configured)
    tables: dict[str, dict[str, Any]] = {}
    for server in servers:
        name = _NAME.sub("-", server.name).strip("-") or "client"
        while name in taken:
            name = f"{name}-client"
        taken.add(name)
        url, command = getattr(server, "url", None), getattr(server, "command", None)
        if getattr(server, "type", None) == "sse" or (url is None) == (command is None):
            kind = getattr(server, "type", None) or "unknown"
            raise UsageError(f"MCP server {server.name!r}: {kind} servers are not supported; use stdio or HTTP")
        if url is not None:
            tables[name] = {"url": url, "headers": {h.name: h.value for h in server.headers}}
        else:
            tables[name] = {
                "command": command,
                "args": list(server.args),
                "env": {variable.name: variable.value for variable in server.env},
            }
    return tables


def prompt_task(blocks: Iterable[Any], workspace: Workspace) -> tuple[str, tuple[ImagePart, ...]]:
    """The task and the task images a prompt's content blocks make (see the module docstring).

    Raises:
        UsageError: the prompt holds what Quorum cannot send (audio, an image of another type or
            not base64), or no text.
    """
    parts: list[str] = []
    images: list[ImagePart] = []
    for block in blocks:
        kind = getattr(block, "type", None)
        if kind == "text":
            parts.append(block.text)
        elif kind == "image":
            images.append(_image(block))
        elif kind == "resource_link":
            parts.append(f"[{block.name}]({_shown_uri(block.uri, workspace)})")
        elif kind == "resource" and isinstance(getattr(block.resource, "text", None), str):
            parts.append(f"{_shown_uri(block.resource.uri, workspace)}:\n```\n{block.resource.text}\n```")
        else:
            raise UsageError(f"prompt content of type {kind!r} is not supported (text, images and resource links are)")
    task = "\n".join(parts).strip()
    if not task:
        raise UsageError("the prompt has no text" if images else "the prompt is empty")
    return task, tuple(images)


def _image(block: Any) -> ImagePart:
    if block.mime_type not in IMAGE_MEDIA_TYPES:
        raise UsageError(f"images of type {block.mime_type!r} are not supported ({', '.join(IMAGE_MEDIA_TYPES)} are)")
    try:
        size = len(base64.b64decode(block.data, validate=True))
    except (binascii.Error, ValueError):
        raise UsageError("an image's data is not base64") from None
    return ImagePart(media_type=block.mime_type, data=block.data, size=size)


def _shown_uri(uri: str, workspace: Workspace) -> str:
    parsed = urlparse(uri)
    if parsed.scheme != "file":
        return uri
    try:
        return workspace.relative(workspace.resolve(unquote(parsed.path)))
    except ToolRefusedError:
        return uri


def session_cwd(cwd: str) -> Path:
    """The session's workspace: ``cwd``, which must be an absolute path to a directory.

    Raises:
        UsageError: a relative path, or no such directory.
    """
    path = Path(cwd)
    if not path.is_absolute():
        raise UsageError(f"cwd {cwd!r} must be an absolute path")
    if not path.is_dir():
        raise UsageError(f"cwd {cwd!r} is not a directory")
    return path.resolve()
