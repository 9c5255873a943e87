"""A tool executor tracing each call as an ``execute_tool {tool}`` span, made current while it runs.

Current, so what the call does is under it: an MCP request (``mcp_request``), a model the tool
samples. ``quorum.tool.risk`` is the risk the loop assessed for this call (``assess_risk``).
"""

from __future__ import annotations

from typing import Any

from quorum.application.ports.tool_executor import ToolExecutor
from quorum.domain.tools import Clearance, RiskAssessment, ToolCall, ToolDefinition, ToolResult, ToolSpec
from quorum.infrastructure.telemetry import names
from quorum.infrastructure.telemetry.content import arguments_json
from quorum.infrastructure.telemetry.core import Telemetry
from quorum.infrastructure.telemetry.hooks import bound

_KEPT = 1024


class TracedExecutor:
    """``ToolExecutor`` around ``inner``; it keeps the risk assessed for each call id until the call runs."""

    def __init__(self, inner: ToolExecutor, telemetry: Telemetry) -> None:
        self._inner = inner
        self._telemetry = telemetry
        self._risks: dict[str, str] = {}

    async def list_tools(self) -> ToolSpec:
        return await self._inner.list_tools()

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        risk = self._inner.assess_risk(call, tool)
        if len(self._risks) >= _KEPT:  # calls never executed here (rejected, run elsewhere) are forgotten
            del self._risks[next(iter(self._risks))]
        self._risks[call.native_id] = risk.level.value
        return risk

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        t = self._telemetry
        attributes: dict[str, Any] = {
            names.OPERATION: names.EXECUTE_TOOL,
            names.TOOL_NAME: call.name,
            names.TOOL_CALL_ID: call.native_id,
            names.TOOL_TYPE: "function",
        }
        risk = self._risks.pop(call.native_id, None)
        if risk is not None:
            attributes[names.TOOL_RISK] = risk
        if t.capture_content:
            attributes[names.TOOL_ARGUMENTS] = arguments_json(call, t.text)
        with t.current_span(f"{names.EXECUTE_TOOL} {call.name}", attributes) as span, bound(t):
            result = await self._inner.execute(call, clearance=clearance)
            if result.is_error:
                span.set_attribute(names.ERROR_TYPE, "tool_error")
            if t.capture_content:
                span.set_attribute(names.TOOL_RESULT, t.text(result.output))
        return result

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)
