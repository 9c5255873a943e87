"""``[mcp.servers.NAME]``: MCP servers used as tool sources."""

from __future__ import annotations

from pydantic import Field, model_validator

from quorum.domain.tools import RiskLevel
from quorum.infrastructure.config.sections import Section


class McpServerSettings(Section):
    """One MCP server: ``command``/``args``/``env``/``cwd`` (stdio) or ``url``/``headers`` (HTTP).

    Attributes:
        env, headers: ``${VAR}`` is replaced from the environment; an unset variable fails the server.
        cwd: working directory of a stdio server; relative paths are taken from the workspace.
        lazy: start on the first call of one of its tools (its list comes from the cache file).
        timeout_seconds: deadline for starting (connect, handshake, first tool list) and for
            refreshing the tool list. Calls are bounded by ``[agent] tool_timeout_seconds``.
        risk: risk of its tools that carry no read-only annotation (default: high).
        enabled_tools, disabled_tools: globs over the server's own tool names.
    """

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    lazy: bool = False
    timeout_seconds: float = Field(30.0, gt=0)
    risk: RiskLevel | None = None
    enabled_tools: list[str] = Field(default_factory=list)
    disabled_tools: list[str] = Field(default_factory=list)

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError("set exactly one of 'command' (stdio) or 'url' (streamable HTTP)")
        return self


class McpSettings(Section):
    """``[mcp]`` section: ``servers`` by name."""

    servers: dict[str, McpServerSettings] = Field(default_factory=dict)
