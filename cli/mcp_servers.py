"""The configured MCP servers as ``mcp list``/``mcp check`` and ``doctor`` see them: started and checked."""

from __future__ import annotations

import asyncio
import fnmatch
import time
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from quorum.domain.errors import UsageError

if TYPE_CHECKING:
    from quorum.domain.tools import RiskLevel


def mcp_source(container: Any) -> Any:
    """The MCP tool source ``container`` builds for a run (the registered ``mcp`` plugin's).

    Raises:
        UsageError: the MCP plugin is blocked or not installed.
    """
    from quorum.composition.container import tool_source

    if container.catalog().tools.get("mcp") is None:
        raise UsageError("the MCP plugin (quorum.mcp) is blocked or not installed")
    return tool_source(container, "mcp")


async def check_servers(
    source: Any, name: str | None = None, *, overrides: Mapping[str, RiskLevel] | None = None
) -> list[dict[str, Any]]:
    """Start each server (``name``: only that one; lazy ones too), list its tools, then close them.

    One dict per server: ``name``, ``ok``, ``required`` (its failure would end a run), ``lazy``;
    when ok ``start_seconds``, ``tools`` (each with its ``risk`` and ``risk_reason``, ``[tools]
    risk`` ``overrides`` applied, and ``pin``: ``match``, ``off`` (``pin = false``), ``unpinned``
    (never pinned yet), or the changes joined by ``, ``) and ``instructions`` (their length); else ``error`` and
    ``seconds``. Shared by ``mcp check`` and ``doctor``; never raises for a server's failure.
    """
    from quorum.domain.tools import RiskAssessment
    from quorum.infrastructure.mcp.naming import namespace_all
    from quorum.infrastructure.mcp.source import tool_risk

    overrides = overrides or {}

    def risk_of(offered: str, default: RiskAssessment) -> RiskAssessment:
        matching = [p for p in overrides if p == offered or fnmatch.fnmatchcase(offered, p)]
        if not matching:
            return default
        pattern = offered if offered in overrides else max(matching, key=len)
        level = overrides[pattern]
        return RiskAssessment(level=level, reason=f"[tools] risk override {pattern!r} = {level.value!r}")

    connections = [c for c in source.connections.values() if name is None or c.name == name]

    async def one(connection: Any) -> dict[str, Any]:
        began = time.monotonic()
        try:
            await connection.start()
            tools = await connection.tool_list()
        except Exception as error:
            return {
                "name": connection.name,
                "ok": False,
                "required": connection.settings.required,
                "lazy": not connection.settings.starts_eagerly,
                "error": str(error),
                "seconds": time.monotonic() - began,
            }
        by_name = {t.name: t for t in tools}
        pins = pin_states(source, connection, tools)
        described = []
        for offered, original in namespace_all(connection.name, by_name).items():
            tool = by_name[original]
            risk = risk_of(offered, tool_risk(tool, connection.settings))
            described.append(
                {
                    "name": original,
                    "as": offered,
                    "risk": risk.level.value,
                    "risk_reason": risk.reason,
                    "pin": pins[original],
                    "not_offered": withheld_because(connection.name, original, pins[original]),
                }
            )
        instructions = connection.instructions if connection.settings.instructions else None
        return {
            "name": connection.name,
            "ok": True,
            "required": connection.settings.required,
            "lazy": not connection.settings.starts_eagerly,
            "start_seconds": round(connection.start_seconds or 0.0, 3),
            "tools": sorted(described, key=lambda t: t["name"]),
            "instructions": len(instructions) if instructions else 0,
        }

    try:
        return list(await asyncio.gather(*(one(c) for c in connections)))
    finally:
        await source.aclose()


def withheld_because(server: str, tool: str, pin: str) -> str | None:
    """Why a tool is not offered to the model (its pin state says it changed), or None when it is."""
    if pin in ("match", "off", "unpinned"):
        return None
    return f"withheld: {pin} changed since pinned (quorum mcp trust {server} {tool})"


def pin_states(source: Any, connection: Any, tools: Any) -> dict[str, str]:
    """Each tool's state against its pin (see ``check_servers``); nothing is pinned here."""
    if not source.pins.active(connection.settings):
        return {t.name: "off" for t in tools}
    check = source.pins.store.check(connection.name, connection.settings, tools)
    states = {t.name: "match" if check.pinned else "unpinned" for t in check.trusted}
    states.update({w.tool.name: ", ".join(w.change) for w in check.withheld})
    return states
