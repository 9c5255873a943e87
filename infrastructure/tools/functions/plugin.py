"""FunctionToolsPlugin: a set of ``@tool`` functions registered as a plugin would register them."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.registries import ToolRegistry
from quorum.infrastructure.tools.functions.tool import Tool


class FunctionToolsPlugin:
    """Registers ``tools`` (``Agent(tools=[…])``: an agent's own functions)."""

    def __init__(self, tools: Sequence[Tool[..., Any]]) -> None:
        self._tools = tools

    @hookimpl
    def quorum_register_tools(self, registry: ToolRegistry) -> None:
        for each in self._tools:
            registry.add_tool(each)
