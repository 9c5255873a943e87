"""The tool source over plain function tools that plugins registered with ``add_tool``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from quorum.application.ports.tool_executor import ToolOutcome
from quorum.domain.tools import Clearance, RiskAssessment, ToolCall, ToolDefinition
from quorum.infrastructure.plugins.registries import FunctionTool, call_tool_function


class FunctionToolSource:
    """Implements ``ToolSource`` over ``ToolRegistry.functions``.

    Each call goes to the registered function (sync or async); its risk is the definition's.
    ``origin(name)`` names the plugin that registered the tool, for listings.
    """

    name = "functions"

    def __init__(self, functions: Mapping[str, FunctionTool]) -> None:
        self._functions = dict(functions)

    async def list_tools(self) -> Sequence[ToolDefinition]:
        return [f.definition for f in self._functions.values()]

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        return RiskAssessment(level=tool.risk, reason=f"declared risk of plugin tool {tool.name!r}")

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolOutcome:
        tool = self._functions.get(call.name)
        if tool is None:
            return ToolOutcome(output=f"unknown tool {call.name!r}", is_error=True)
        return await call_tool_function(tool.function, dict(call.arguments))

    def origin(self, tool_name: str) -> str:
        tool = self._functions.get(tool_name)
        return tool.plugin if tool is not None else self.name

    async def aclose(self) -> None:
        return None
