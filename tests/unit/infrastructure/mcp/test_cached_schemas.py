"""MCP tool names and schemas read from the tool-list cache, as the name checks see them."""

from __future__ import annotations

from pathlib import Path

from quorum.infrastructure.mcp.cache import ToolListCache
from quorum.infrastructure.mcp.naming import namespaced, server_prefix
from quorum.infrastructure.mcp.settings import McpServerSettings


def test_cached_tools_by_namespaced_name_with_their_schema(tmp_path: Path) -> None:
    cache = ToolListCache(tmp_path)
    settings = McpServerSettings(command="srv", disabled_tools=["hidden"])
    assert cache.schemas("my.srv", settings) is None
    schema = {"type": "object", "properties": {"tz": {"type": "string"}}}
    cache.store("my.srv", settings, [{"name": "now", "input_schema": schema}, {"name": "hidden"}])
    assert cache.schemas("my.srv", settings) == {"mcp__my_srv__now": schema, "mcp__my_srv__hidden": None}


def test_server_prefix_is_how_its_tool_names_start() -> None:
    assert server_prefix("my.srv") == "mcp__my_srv__"
    assert namespaced("my.srv", "now").startswith(server_prefix("my.srv"))
