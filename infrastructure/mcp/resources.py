"""``mcp_read_resource``: the built-in, low-risk tool that reads MCP servers' resources.

It is offered when at least one running server declares the ``resources`` capability. Its
description lists the resources those servers announce (``resources/list``, capped); called with
a server and no URI it lists that server's resources in full (up to ``LIST_LIMIT``), with a URI it
reads the resource: text is returned (the executor caps it), images go to the model as images,
other binary contents are described.
"""

from __future__ import annotations

import asyncio
from collections.abc import Mapping
from typing import Any

from quorum.domain.tools import RiskLevel, ToolDefinition, ToolResult, human_size
from quorum.infrastructure.mcp.connection import McpServerConnection
from quorum.infrastructure.mcp.results import READ_TOOL, outcome_from_contents
from quorum.infrastructure.mcp.transport import describe

DESCRIBED_LIMIT = 20
"""At most this many resources are named in the tool's description (all servers together)."""

LIST_LIMIT = 200
"""At most this many resources are listed when the model asks for a server's list."""

_DESCRIPTION = (
    "Read a resource of an MCP server by its URI (resource links in tool results name one). Text is "
    "returned, images are shown, other binary content is described. Omit `uri` to list the server's "
    "resources."
)


class ResourceReader:
    """The ``mcp_read_resource`` tool over the connections of one ``McpToolSource``.

    Args:
        connections: the source's connections by server name (read when listing, so servers
            started later are seen).
    """

    def __init__(self, connections: Mapping[str, McpServerConnection]) -> None:
        self._connections = connections
        self._described: dict[str, list[Any]] = {}

    def _readable(self) -> list[McpServerConnection]:
        return [c for c in self._connections.values() if c.offers_resources]

    async def definition(self) -> ToolDefinition | None:
        """The tool, when a running server offers resources; its description names known resources."""
        servers = self._readable()
        if not servers:
            return None
        missing = [c for c in servers if c.name not in self._described]
        listed = await asyncio.gather(*(c.list_resources(DESCRIBED_LIMIT) for c in missing), return_exceptions=True)
        for connection, resources in zip(missing, listed, strict=True):
            self._described[connection.name] = resources if isinstance(resources, list) else []
        lines: list[str] = []
        total = sum(len(self._described[c.name]) for c in servers)
        for connection in servers:
            for resource in self._described[connection.name]:
                if len(lines) < DESCRIBED_LIMIT:
                    lines.append(f"- {connection.name}: {_resource_line(resource)}")
        if total > len(lines):
            lines.append(f"- … {total - len(lines)} more (omit `uri` to list a server's resources)")
        description = _DESCRIPTION + ("\nKnown resources:\n" + "\n".join(lines) if lines else "")
        names = [c.name for c in servers]
        return ToolDefinition(
            name=READ_TOOL,
            description=description,
            risk=RiskLevel.LOW,
            input_schema={
                "type": "object",
                "properties": {
                    "server": {"type": "string", "enum": names, "description": "the MCP server's name"},
                    "uri": {"type": "string", "description": "the resource's URI; omit to list the resources"},
                },
                "required": ["server"],
                "additionalProperties": False,
            },
        )

    async def call(self, arguments: Mapping[str, Any]) -> ToolResult:
        """Read (or list) a server's resources; every failure is an error result, never raised."""
        name = arguments.get("server")
        connection = self._connections.get(name) if isinstance(name, str) else None
        if connection is None or not connection.offers_resources:
            offered = ", ".join(c.name for c in self._readable()) or "(none)"
            problem = f"no MCP server {name!r} with resources; servers with resources: {offered}"
            return ToolResult(output=problem, is_error=True)
        uri = arguments.get("uri")
        try:
            if uri is None or uri == "":
                resources = await connection.list_resources(LIST_LIMIT + 1)
                return ToolResult(output=_listing(connection.name, resources))
            if not isinstance(uri, str):
                return ToolResult(output="uri must be a string", is_error=True)
            contents = await connection.read_resource(uri)
        except Exception as error:  # the SDK's MCPError, a lost connection: the model sees why
            problem = f"MCP server {connection.name!r} could not read {uri!r}: {describe(error)}"
            return ToolResult(output=problem, is_error=True)
        return outcome_from_contents(contents)


def _resource_line(resource: Any) -> str:
    name = getattr(resource, "name", None) or ""
    title = getattr(resource, "title", None)
    facts = [getattr(resource, "mime_type", None)]
    size = getattr(resource, "size", None)
    if isinstance(size, int):
        facts.append(human_size(size))
    label = ", ".join(f for f in (title or name, *facts) if f)
    description = getattr(resource, "description", None)
    line = str(getattr(resource, "uri", "?")) + (f" ({label})" if label else "")
    return line + (f": {description}" if description else "")


def _listing(server: str, resources: list[Any]) -> str:
    if not resources:
        return f"MCP server {server!r} lists no resources"
    lines = [f"Resources of MCP server {server!r}:"]
    lines.extend(f"- {_resource_line(r)}" for r in resources[:LIST_LIMIT])
    if len(resources) > LIST_LIMIT:
        lines.append(f"(only the first {LIST_LIMIT} are listed)")
    return "\n".join(lines)
