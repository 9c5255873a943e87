"""Names of MCP tools as the model sees them: ``mcp__<server>__<tool>``, sanitised, at most 64 chars."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable

MAX_NAME = 64
_UNSAFE = re.compile(r"[^A-Za-z0-9_-]")


def _digest(server: str, tool: str) -> str:
    return hashlib.sha256(f"{server}\x00{tool}".encode()).hexdigest()[:8]


def namespaced(server: str, tool: str) -> str:
    """``mcp__<server>__<tool>`` with unsafe characters replaced by ``_``.

    When that is longer than 64 characters it is cut and ends with ``_`` plus 8 hex digits of a
    hash of the original names, so the result is deterministic and still distinct.
    """
    name = f"mcp__{_UNSAFE.sub('_', server)}__{_UNSAFE.sub('_', tool)}"
    if len(name) <= MAX_NAME:
        return name
    return f"{name[: MAX_NAME - 9]}_{_digest(server, tool)}"


def server_prefix(server: str) -> str:
    """``mcp__<server>__``, sanitised: how the names of a server's tools start (unless cut short)."""
    return f"mcp__{_UNSAFE.sub('_', server)}__"


def namespace_all(server: str, tools: Iterable[str]) -> dict[str, str]:
    """Namespaced name → original name for one server's tools, clashes made distinct.

    Two originals that sanitise to the same name (``a.b`` and ``a_b``) are told apart by giving the
    later one in sorted order a hash suffix; the mapping depends only on the set of names.
    """
    result: dict[str, str] = {}
    for tool in sorted(set(tools)):
        name = namespaced(server, tool)
        if name in result:
            name = f"{name[: MAX_NAME - 9]}_{_digest(server, tool)}"
        result[name] = tool
    return result
