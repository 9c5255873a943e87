"""Port turning tool definitions into provider-neutral JSON Schema."""

from __future__ import annotations

from typing import Any, Protocol

from quorum.domain.tools import ToolDefinition, ToolSpec


class ToolSchemaPort(Protocol):
    """Converts ToolDefinitions to ``{"name", "description", "input_schema", "risk"}`` dicts. Pure.

    ``risk`` is the tool's default risk (``"low"``/``"high"``): provider adapters send only name,
    description and schema; offline models (the ``test`` provider) use it to pick read-only tools.
    """

    def tool_to_schema(self, tool: ToolDefinition) -> dict[str, Any]:
        """The neutral schema of one tool."""
        ...

    def all_tools_schema(self, spec: ToolSpec) -> list[dict[str, Any]]:
        """Schemas of every tool in ``spec``."""
        ...

    def low_risk_tools_schema(self, spec: ToolSpec) -> list[dict[str, Any]]:
        """Schemas of the low-risk tools only (the read-only ``ask`` mode)."""
        ...
