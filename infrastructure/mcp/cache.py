"""Tool lists of MCP servers kept on disk, so lazy servers can offer tools without starting."""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
from pathlib import Path
from typing import Any

from quorum.infrastructure.mcp.naming import namespace_all
from quorum.infrastructure.mcp.settings import McpServerSettings

CACHE_VERSION = 2
"""2: entries keep the tool's whole ``definition`` (what pins are checked against)."""
CACHE_SUBDIR = "mcp-tools"
"""The folder of the tool-list cache inside Quorum's cache directory."""


def fingerprint(settings: McpServerSettings) -> str:
    """What identifies a server's tool list: how it is started or reached (not env or headers)."""
    key = json.dumps([settings.command, settings.args, settings.cwd, settings.url], sort_keys=True)
    return hashlib.sha256(key.encode()).hexdigest()[:16]


class ToolListCache:
    """``<dir>/<server>.json`` holding the last tool list a server reported.

    Entries are plain dicts ``{"name", "description", "input_schema", "annotations", "task_support",
    "definition"}``;
    the file also keeps the server's ``instructions`` (or null). A file whose fingerprint no longer
    matches the server's settings is ignored. Writes are atomic (rename).
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory

    def _path(self, server: str) -> Path:
        safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in server)
        return self.directory / f"{safe}.json"

    def _read(self, server: str, settings: McpServerSettings) -> dict[str, Any] | None:
        try:
            data = json.loads(self._path(server).read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict):
            return None
        if data.get("version") != CACHE_VERSION or data.get("fingerprint") != fingerprint(settings):
            return None
        return data

    def load(self, server: str, settings: McpServerSettings) -> list[dict[str, Any]] | None:
        """The cached tools, or None when there is no usable cache."""
        tools = (self._read(server, settings) or {}).get("tools")
        return tools if isinstance(tools, list) else None

    def instructions(self, server: str, settings: McpServerSettings) -> str | None:
        """The server's cached ``instructions``, or None (none given, or no usable cache)."""
        text = (self._read(server, settings) or {}).get("instructions")
        return text if isinstance(text, str) else None

    def schemas(self, server: str, settings: McpServerSettings) -> dict[str, Any] | None:
        """Namespaced tool name → input schema (None if absent) of every cached tool, or None.

        The server's own ``enabled_tools``/``disabled_tools`` are not applied: a tool it hides is
        still a tool a setting may name.
        """
        tools = self.load(server, settings)
        if tools is None:
            return None
        entries = {str(t["name"]): t.get("input_schema") for t in tools if isinstance(t, dict) and "name" in t}
        return {name: entries[original] for name, original in namespace_all(server, entries).items()}

    def store(
        self, server: str, settings: McpServerSettings, tools: list[dict[str, Any]], instructions: str | None = None
    ) -> None:
        """Write the list; a cache that cannot be written is not an error worth failing a run for."""
        path = self._path(server)
        payload = {
            "version": CACHE_VERSION,
            "fingerprint": fingerprint(settings),
            "tools": tools,
            "instructions": instructions,
        }
        with contextlib.suppress(OSError):
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            tmp.write_text(json.dumps(payload, indent=1, sort_keys=True), encoding="utf-8")
            tmp.replace(path)
