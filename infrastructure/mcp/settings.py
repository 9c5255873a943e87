"""``[mcp.servers.NAME]``: MCP servers used as tool sources."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from quorum.domain.tools import RiskLevel
from quorum.infrastructure.config.sections import Section
from quorum.infrastructure.mcp.auth.settings import McpAuthSettings

McpLogLevel = Literal["debug", "info", "notice", "warning", "error", "critical", "alert", "emergency"]
"""The MCP (syslog) log levels, least severe first."""


class McpServerSettings(Section):
    """One MCP server: ``command``/``args``/``env``/``cwd`` (stdio) or ``url``/``headers`` (HTTP).

    Attributes:
        env, headers: ``${VAR}`` is replaced from the environment; an unset variable fails the server.
        auth: OAuth of an HTTP server (``[mcp.servers.NAME.auth]``, see ``McpAuthSettings``).
        cwd: working directory of a stdio server (default: the workspace); relative paths are taken
            from the workspace.
        lazy: start on the first call of one of its tools (its list comes from the cache file).
            Ignored when ``required``: a required server starts before the run.
        timeout_seconds: deadline for starting (connect, handshake, first tool list) and for
            refreshing the tool list. Calls are bounded by ``[agent] tool_timeout_seconds``.
        risk: risk of its tools that carry no read-only annotation (default: high).
        enabled_tools, disabled_tools: globs over the server's own tool names.
        required: a failure to start ends the run (exit 1) instead of leaving the server out;
            the server is then started before the run, even when ``lazy``, so the run ends
            before its first model request rather than in the middle of a turn.
        instructions: append the server's ``instructions`` to the system prompt (capped, fenced).
        sampling: whether the server may use a model (``sampling/createMessage``): ``deny``,
            ``ask`` the person (deny when nobody can be asked), or ``allow``.
        sampling_model: the model (``provider:model`` or an alias) serving it; default: the run's.
        sampling_max_tokens: the most output tokens one sampling request may ask for.
        log_level: the least severe server log message wanted (``logging/setLevel``); unset: the
            server's default.
        pin: pin the server's tool definitions (trust on first use) and withhold a tool whose
            definition changed, or that is new, until ``quorum mcp trust`` (see docs/mcp.md).
            ``false`` offers whatever the server says, as it says it, every time.
    """

    command: str | None = None
    args: list[str] = Field(default_factory=list)
    env: dict[str, str] = Field(default_factory=dict)
    cwd: str | None = None
    url: str | None = None
    headers: dict[str, str] = Field(default_factory=dict)
    auth: McpAuthSettings = Field(default_factory=McpAuthSettings)
    lazy: bool = False
    timeout_seconds: float = Field(30.0, gt=0)
    risk: RiskLevel | None = None
    enabled_tools: list[str] = Field(default_factory=list)
    disabled_tools: list[str] = Field(default_factory=list)
    required: bool = False
    instructions: bool = True
    sampling: Literal["deny", "ask", "allow"] = "ask"
    sampling_model: str | None = None
    sampling_max_tokens: int = Field(1024, ge=1, le=1_000_000)
    log_level: McpLogLevel | None = None
    pin: bool = True

    @property
    def starts_eagerly(self) -> bool:
        """Whether the server starts before the run: not ``lazy``, or ``required``."""
        return not self.lazy or self.required

    @model_validator(mode="after")
    def _one_transport(self) -> McpServerSettings:
        if (self.command is None) == (self.url is None):
            raise ValueError("set exactly one of 'command' (stdio) or 'url' (streamable HTTP)")
        return self


class McpSettings(Section):
    """``[mcp]`` section: ``servers`` by name."""

    servers: dict[str, McpServerSettings] = Field(default_factory=dict)
