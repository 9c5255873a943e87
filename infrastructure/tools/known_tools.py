"""``KnownTools``: every tool name a configuration may refer to, known without starting anything.

Built-in and plugin function tools are known from their definitions, MCP tools from each server's
cached tool list. What cannot be known cheaply is recorded too, so a name that matches nothing
there is reported as unchecked rather than wrong: an MCP server whose list is not cached yet, and
any third-party tool source (it lists its tools only once built and asked).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from quorum.domain.tools import ToolDefinition

WILDCARDS = "*?["
"""Characters that end the literal start of a glob (fnmatch's and the policy globs' alike)."""


def schema_properties(schema: Mapping[str, Any] | None) -> frozenset[str] | None:
    """The argument names a JSON Schema declares, or None when it declares none explicitly."""
    properties = (schema or {}).get("properties")
    return frozenset(properties) if isinstance(properties, Mapping) else None


def parameters_of(definition: ToolDefinition) -> frozenset[str] | None:
    """The argument names of a tool: its parameters, else its schema's properties (None: unknown)."""
    if definition.input_schema is not None:
        return schema_properties(definition.input_schema)
    return frozenset(p.name for p in definition.parameters)


def literal_start(pattern: str) -> str:
    """The part of a glob before its first wildcard: every name it matches starts with it."""
    cut = min((i for i in (pattern.find(c) for c in WILDCARDS) if i >= 0), default=len(pattern))
    return pattern[:cut]


@dataclass(frozen=True)
class KnownTools:
    """Tool names known now, with their argument names, and what could add more.

    Attributes:
        parameters: tool name → its argument names (None when its schema does not say).
        unlisted_servers: MCP server → the prefix of its tool names (``mcp__<server>__``), for
            servers whose tool list is not cached yet.
        unlisted_sources: third-party tool sources, whose tools cannot be listed without them.
    """

    parameters: Mapping[str, frozenset[str] | None]
    unlisted_servers: Mapping[str, str] = field(default_factory=dict)
    unlisted_sources: tuple[str, ...] = ()

    def names(self) -> list[str]:
        """Every known tool name, sorted."""
        return sorted(self.parameters)

    def matching(self, matches: Callable[[str], bool]) -> list[str]:
        """The known tool names ``matches`` accepts."""
        return [name for name in self.names() if matches(name)]

    def unknowable(self, pattern: str) -> list[str]:
        """Why a glob matching no known tool may still match a tool (empty: it cannot).

        Only globs written for MCP tools (starting ``mcp__``) are taken to address a server whose
        list is unknown; any glob may address a third-party source's tools.
        """
        start = literal_start(pattern)
        reasons = [
            f"MCP server {server!r} has not listed its tools yet (`quorum mcp check {server}` lists them)"
            for server, prefix in self.unlisted_servers.items()
            if start.startswith("mcp__") and (start.startswith(prefix) or prefix.startswith(start))
        ]
        reasons += [f"tool source {source!r} cannot be listed without starting it" for source in self.unlisted_sources]
        return reasons


def known_tools(
    definitions: Iterable[ToolDefinition],
    mcp_tools: Mapping[str, Mapping[str, Mapping[str, Any] | None] | None],
    *,
    mcp_prefixes: Mapping[str, str],
    unlisted_sources: Iterable[str] = (),
) -> KnownTools:
    """Assemble what is known.

    Args:
        definitions: built-in and plugin function tools.
        mcp_tools: per MCP server, namespaced tool name → its input schema; None when the server's
            list is not cached.
        mcp_prefixes: per MCP server, the prefix of its namespaced tool names.
        unlisted_sources: names of tool sources that cannot be listed cheaply.
    """
    parameters: dict[str, frozenset[str] | None] = {d.name: parameters_of(d) for d in definitions}
    unlisted: dict[str, str] = {}
    for server, tools in mcp_tools.items():
        if tools is None:
            unlisted[server] = mcp_prefixes[server]
            continue
        for name, schema in tools.items():
            parameters.setdefault(name, schema_properties(schema))
    return KnownTools(parameters, unlisted, tuple(unlisted_sources))
