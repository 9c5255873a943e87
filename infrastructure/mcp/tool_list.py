"""``ServerToolList``: one MCP server's tool list: cached, listed, and marked stale on change notices.

A lazy server not started yet offers the tools of the cache file; a running one its live list,
listed again (all pages) after it announced ``tools/list_changed``, either as a plain notification
or, on 2026-07-28 connections, on a ``subscriptions/listen`` stream.
"""

from __future__ import annotations

import asyncio
from typing import Any

from quorum.infrastructure.mcp.cache import ToolListCache
from quorum.infrastructure.mcp.server_tools import ServerTool
from quorum.infrastructure.mcp.settings import McpServerSettings

_MAX_PAGES = 100
"""Pages of ``tools/list`` read at most: a server paging for ever is cut off."""


class ServerToolList:
    """The tools of server ``name``, with ``cache`` (None: no cache file) keyed by its settings."""

    def __init__(self, name: str, settings: McpServerSettings, cache: ToolListCache | None) -> None:
        self._name = name
        self._settings = settings
        self._cache = cache
        self.tools: list[ServerTool] | None = None
        """The last list read from the server, or None before the first."""
        self.stale = False
        """The server announced a change since the last list."""
        self.changed = asyncio.Event()
        """Set whenever the server announces tools/list_changed (tests and UIs may wait on it)."""

    def cached(self) -> list[ServerTool] | None:
        """The tool list from the cache file, when there is one for these settings."""
        if self._cache is None:
            return None
        data = self._cache.load(self._name, self._settings)
        if data is None:
            return None
        try:
            return [ServerTool.from_dict(d) for d in data]
        except (KeyError, TypeError, ValueError):
            return None

    def cached_instructions(self) -> str | None:
        """The ``instructions`` stored with the cached tool list."""
        return self._cache.instructions(self._name, self._settings) if self._cache is not None else None

    async def refresh(
        self, client: Any, *, instructions: str | None, store: bool, meta: dict[str, Any] | None = None
    ) -> None:
        """List every page of the server's tools; ``store`` them in the cache with ``instructions``.

        ``meta``: ``params._meta`` entries sent with each page's request (the trace context).

        Raises:
            Exception: The SDK's error (the last list is kept).
        """
        tools: list[ServerTool] = []
        cursor: str | None = None
        for _ in range(_MAX_PAGES):
            page = await client.list_tools(cursor=cursor, cache_mode="refresh", meta=meta)
            tools.extend(ServerTool.from_mcp(t) for t in page.tools)
            cursor = page.next_cursor
            if cursor is None:
                break
        self.stale = False
        self.tools = tools
        if store:
            self.store(instructions)

    def store(self, instructions: str | None) -> None:
        """Write the current list and ``instructions`` to the cache file (if any list and cache)."""
        if self._cache is not None and self.tools is not None:
            self._cache.store(self._name, self._settings, [t.to_dict() for t in self.tools], instructions)

    def mark_stale(self) -> None:
        """The server announced a change: list again before the next use."""
        self.stale = True
        self.changed.set()

    async def on_message(self, message: Any) -> None:
        """The SDK's message handler: a ``tools/list_changed`` notification marks the list stale."""
        method = getattr(message, "method", None) or getattr(getattr(message, "root", None), "method", None)
        if method == "notifications/tools/list_changed":
            self.mark_stale()

    async def listen(self, client: Any, listening: asyncio.Event) -> None:
        """On 2026-07-28 connections, change notices only flow on a ``subscriptions/listen`` stream."""
        try:
            async with client.listen(tools_list_changed=True) as subscription:
                listening.set()
                async for _event in subscription:
                    self.mark_stale()
        except Exception:
            pass  # not supported, or the server went away: plain notifications still mark changes
        finally:
            listening.set()
