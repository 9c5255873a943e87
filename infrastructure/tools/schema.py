"""JSON Schema for tool definitions: the provider-neutral shape every adapter starts from."""

from __future__ import annotations

import copy
from typing import Any

from quorum.domain.tools import ToolDefinition, ToolParameter, ToolSpec

_JSON_TYPES: dict[str, str] = {
    "string": "string",
    "path": "string",
    "number": "number",
    "integer": "integer",
    "boolean": "boolean",
    "array": "array",
    "object": "object",
}


class JsonSchemaToolConverter:
    """Implements ``ToolSchemaPort``: ``{"name", "description", "input_schema", "risk"}`` per tool.

    Tools described by ``parameters`` get an object schema with ``additionalProperties: false``;
    a tool that brings its own ``input_schema`` (MCP tools) has it passed through as a copy, with
    ``"type": "object"`` added when missing because every provider requires an object at the top.
    Pure: no I/O, the same input always gives the same output.
    """

    def tool_to_schema(self, tool: ToolDefinition) -> dict[str, Any]:
        if tool.input_schema is not None:
            schema = copy.deepcopy(tool.input_schema)
            schema.setdefault("type", "object")
        else:
            schema = {
                "type": "object",
                "properties": {p.name: self._parameter(p) for p in tool.parameters},
                "required": [p.name for p in tool.parameters if p.required],
                "additionalProperties": False,
            }
        return {
            "name": tool.name,
            "description": tool.description,
            "input_schema": schema,
            "risk": tool.risk.value,
        }

    def all_tools_schema(self, spec: ToolSpec) -> list[dict[str, Any]]:
        return [self.tool_to_schema(t) for t in spec.all()]

    def low_risk_tools_schema(self, spec: ToolSpec) -> list[dict[str, Any]]:
        return [self.tool_to_schema(t) for t in spec.low_risk_tools()]

    @staticmethod
    def _parameter(param: ToolParameter) -> dict[str, Any]:
        prop: dict[str, Any] = {"type": _JSON_TYPES[param.param_type]}
        if param.description:
            prop["description"] = param.description
        if param.param_type == "path":
            # Models do better when told how a path is interpreted.
            prop["description"] = (param.description + " " if param.description else "") + (
                "(relative to the workspace)"
            )
        if param.param_type == "array":
            prop["items"] = {}
        if param.enum is not None:
            prop["enum"] = list(param.enum)
        if param.default is not None:
            prop["default"] = param.default
        return prop
