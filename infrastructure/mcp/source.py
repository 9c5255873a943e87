"""``McpToolSource``: every configured MCP server behind one ``ToolSource``."""

from __future__ import annotations

import asyncio
import fnmatch
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path

from quorum.application.ports.tool_executor import ToolOutcome
from quorum.domain.tools import Clearance, RiskAssessment, RiskLevel, ToolCall, ToolDefinition
from quorum.infrastructure.mcp.cache import ToolListCache
from quorum.infrastructure.mcp.client_features import ClientSide
from quorum.infrastructure.mcp.connection import McpServerConnection
from quorum.infrastructure.mcp.naming import namespace_all
from quorum.infrastructure.mcp.resources import ResourceReader
from quorum.infrastructure.mcp.results import READ_TOOL
from quorum.infrastructure.mcp.server_tools import ServerTool
from quorum.infrastructure.mcp.settings import McpServerSettings


def tool_risk(tool: ServerTool, server: McpServerSettings) -> RiskAssessment:
    """The default risk of an MCP tool: annotations, else the server's ``risk``, else high.

    ``[tools] risk`` overrides are applied above this, by the executor.
    """
    if tool.read_only is True and tool.destructive is not True:
        return RiskAssessment(level=RiskLevel.LOW, reason="the server marks it read-only (readOnlyHint)")
    if server.risk is not None:
        return RiskAssessment(level=server.risk, reason=f"the server's configured risk ({server.risk.value})")
    return RiskAssessment(level=RiskLevel.HIGH, reason="MCP tools are high risk unless marked read-only")


@dataclass(frozen=True)
class _Route:
    connection: McpServerConnection
    original: str
    risk: RiskAssessment


class McpToolSource:
    """Implements ``ToolSource`` over all ``[mcp.servers.*]``.

    The first ``list_tools`` starts the eager servers concurrently, each within its
    ``timeout_seconds``; lazy servers offer the tool list cached from their last run and start on
    their first call (a lazy server with no cache yet is started to learn its tools). A server
    that fails is reported in ``problems`` and left out; the others carry on. Tools are named
    ``mcp__<server>__<tool>`` (see ``naming``) and filtered by the server's ``enabled_tools`` /
    ``disabled_tools`` (globs over the server's own names).

    Args:
        servers: the ``[mcp.servers]`` table.
        env: the environment ``${VAR}`` in ``env``/``headers`` is expanded from.
        workspace: relative ``cwd`` settings are resolved against it.
        cache_dir: where tool lists are cached (None: no cache; lazy servers then start to list).
        client_side: what serves the servers' sampling and elicitation requests (None: refused).
    """

    name = "mcp"

    def __init__(
        self,
        servers: Mapping[str, McpServerSettings],
        *,
        env: Mapping[str, str] | None = None,
        workspace: Path | None = None,
        cache_dir: Path | None = None,
        client_side: ClientSide | None = None,
    ) -> None:
        cache = ToolListCache(cache_dir) if cache_dir is not None else None
        self.connections: dict[str, McpServerConnection] = {
            name: McpServerConnection(
                name,
                settings,
                env=env or {},
                workspace=workspace or Path.cwd(),
                cache=cache,
                features=(client_side or ClientSide()).for_server(name, settings, workspace or Path.cwd()),
            )
            for name, settings in servers.items()
        }
        self.problems: list[str] = []
        self._routes: dict[str, _Route] = {}
        self._started = False
        self._start_lock = asyncio.Lock()
        self._resources = ResourceReader(self.connections)

    async def start(self) -> None:
        """Start the eager servers (once), concurrently; failures go to ``problems``."""
        async with self._start_lock:
            if self._started:
                return
            self._started = True
            eager = [c for c in self.connections.values() if not c.settings.lazy]
            results = await asyncio.gather(*(c.start() for c in eager), return_exceptions=True)
            for result in results:
                if isinstance(result, Exception):
                    self._note(str(result))

    async def list_tools(self) -> Sequence[ToolDefinition]:
        await self.start()
        definitions: list[ToolDefinition] = []
        routes: dict[str, _Route] = {}
        for connection in self.connections.values():
            for name, tool in (await self._server_tools(connection)).items():
                risk = tool_risk(tool, connection.settings)
                routes[name] = _Route(connection, tool.name, risk)
                definitions.append(
                    ToolDefinition(
                        name=name,
                        description=tool.description or f"{tool.name} (MCP server {connection.name})",
                        risk=risk.level,
                        input_schema=tool.input_schema,
                    )
                )
        self._routes = routes
        reader = await self._resources.definition()  # mcp_read_resource, when a server has resources
        return [*definitions, reader] if reader is not None else definitions

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        route = self._routes.get(call.name)
        return route.risk if route is not None else RiskAssessment(level=tool.risk, reason="declared risk")

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolOutcome:
        route = self._routes.get(call.name)
        if route is None and call.name == READ_TOOL:
            return await self._resources.call(call.arguments)
        if route is None:
            return ToolOutcome(output=f"unknown MCP tool {call.name!r}", is_error=True)
        return await route.connection.call(route.original, dict(call.arguments))

    def origin(self, tool_name: str) -> str:
        route = self._routes.get(tool_name)
        return f"mcp:{route.connection.name}" if route is not None else self.name

    async def aclose(self) -> None:
        await asyncio.gather(*(c.aclose() for c in self.connections.values()), return_exceptions=True)

    async def _server_tools(self, connection: McpServerConnection) -> dict[str, ServerTool]:
        if connection.state == "running":
            tools = await connection.tool_list()
        elif connection.state == "dead" and connection.tools is not None:
            tools = list(connection.tools)  # keep offering them: the next call restarts the server
        elif connection.state == "idle":
            cached = connection.cached_tools()
            if cached is not None:
                tools = cached
            else:
                try:
                    await connection.start()
                except Exception as error:
                    self._note(str(error))
                    return {}
                tools = await connection.tool_list()
        else:
            return {}
        settings = connection.settings
        kept = [
            t
            for t in tools
            if (not settings.enabled_tools or any(fnmatch.fnmatchcase(t.name, p) for p in settings.enabled_tools))
            and not any(fnmatch.fnmatchcase(t.name, p) for p in settings.disabled_tools)
        ]
        by_original = {t.name: t for t in kept}
        return {name: by_original[original] for name, original in namespace_all(connection.name, by_original).items()}

    def _note(self, message: str) -> None:
        if message not in self.problems:
            self.problems.append(message)
