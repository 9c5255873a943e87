"""The tool source over the function tools that plugins registered with ``add_tool``."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path

from quorum.application.run_context import current_run_id
from quorum.domain.tools import Clearance, RiskAssessment, ToolCall, ToolDefinition, ToolResult
from quorum.infrastructure.plugins.registries import FunctionTool
from quorum.infrastructure.tools.functions.tool_context import ToolContext


class FunctionToolSource:
    """Implements ``ToolSource`` over ``ToolRegistry.functions``.

    Each call goes to the registered ``Tool`` (sync or async); its risk is the definition's.
    ``origin(name)`` names the plugin that registered the tool, for listings.

    Args:
        functions: the registered tools, by name.
        workspace: the directory tools act in, passed on in each call's ``ToolContext``.
    """

    name = "functions"

    def __init__(self, functions: Mapping[str, FunctionTool], *, workspace: Path | None = None) -> None:
        self._functions = dict(functions)
        self._workspace = workspace

    async def list_tools(self) -> Sequence[ToolDefinition]:
        return [f.definition for f in self._functions.values()]

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        return RiskAssessment(level=tool.risk, reason=f"declared risk of plugin tool {tool.name!r}")

    async def execute(
        self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED, context: ToolContext | None = None
    ) -> ToolResult:
        """Run one call; ``context`` is what a ``ToolContext`` parameter receives.

        Without ``context``, the tool gets one built from what this source knows: the call's id,
        the workspace, and the run id of the run being served (``current_run_id``).
        """
        entry = self._functions.get(call.name)
        if entry is None:
            return ToolResult(output=f"unknown tool {call.name!r}", is_error=True)
        if context is None:
            run_id = current_run_id.get()
            context = ToolContext.for_call(call.name, call.native_id, run_id=run_id, workspace=self._workspace)
        return await entry.tool.invoke(call.arguments, context)

    def origin(self, tool_name: str) -> str:
        entry = self._functions.get(tool_name)
        return entry.plugin if entry is not None else self.name

    async def aclose(self) -> None:
        return None
