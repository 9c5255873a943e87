"""``quorum mcp list`` and ``quorum mcp check [NAME]``: the configured MCP servers and their health."""

from __future__ import annotations

import asyncio
import fnmatch
import json
import time
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from quorum.cli.commands.shared_options import config_option
from quorum.cli.errors import handled
from quorum.cli.options import AppOptions
from quorum.domain.errors import RunFailure, UsageError
from quorum.infrastructure.terminal_text import printable

if TYPE_CHECKING:
    from quorum.domain.tools import RiskLevel

_JSON = click.option("--json", "as_json", is_flag=True, help="One JSON object per server.")


@click.group()
def mcp() -> None:
    """MCP servers configured under [mcp.servers]."""


def mcp_source(config_path: Path | None, *, container: Any = None) -> Any:
    """The MCP tool source the container would build, from the registered ``mcp`` plugin."""
    from quorum.cli.container import build_container, user_data_dir, workspace_of
    from quorum.infrastructure.plugins.contracts import ToolSourceContext

    if container is None:
        container = build_container(AppOptions(config_path=config_path))
    settings = container.settings()
    entry = container.catalog().tools.get("mcp")
    if entry is None:
        raise UsageError("the MCP plugin (quorum.mcp) is blocked or not installed")
    context = ToolSourceContext(
        workspace=workspace_of(settings),
        settings=settings,
        env=container.env(),
        cache_dir=user_data_dir() / "cache",
        secrets=container.secrets(),
    )
    return entry.value(context)


def _row(connection: Any) -> dict[str, Any]:
    tools = connection.tools
    cached = False
    if tools is None and connection.state == "idle":
        tools, cached = connection.cached_tools(), True
    settings = connection.settings
    return {
        "name": connection.name,
        "transport": "stdio" if settings.command is not None else "http",
        "target": settings.command if settings.command is not None else settings.url,
        "lazy": not settings.starts_eagerly,
        "state": connection.state,
        "tools": None if tools is None else len(tools),
        "tools_cached": cached and tools is not None,
        "start_seconds": None if connection.start_seconds is None else round(connection.start_seconds, 3),
        "error": connection.error,
        "not_offered": [
            {"name": t.name, "reason": t.not_offered_because} for t in tools or [] if t.not_offered_because
        ],
    }


@mcp.command("list")
@config_option
@_JSON
def list_servers(config_path: Path | None, as_json: bool) -> None:
    """Servers with their state and tool count (eager servers are started, as a run would)."""
    with handled():
        rows = asyncio.run(_list(mcp_source(config_path)))
    if as_json:
        for row in rows:
            click.echo(json.dumps(row))
        return
    if not rows:
        click.echo("no MCP servers configured ([mcp.servers.NAME] in quorum.toml)", err=True)
        return
    width = max(len(r["name"]) for r in rows)
    for r in rows:
        count = "?" if r["tools"] is None else f"{r['tools']}{' (cached)' if r['tools_cached'] else ''}"
        mode = "lazy" if r["lazy"] else "eager"
        line = f"{r['name']:<{width}}  {r['transport']:<5}  {mode:<5}  {r['state']:<8}  tools: {count}"
        if r["start_seconds"] is not None:
            line += f"  started in {r['start_seconds']:.2f} s"
        click.echo(printable(line))
        if r["error"]:
            click.echo(f"  {printable(r['error'].splitlines()[0])} (details: quorum mcp check {r['name']})")
        for tool in r["not_offered"]:
            click.echo(f"  not offered: {printable(tool['name'])}: {tool['reason']}")


async def _list(source: Any) -> list[dict[str, Any]]:
    try:
        await source.start()
        return [_row(c) for c in source.connections.values()]
    finally:
        await source.aclose()


@mcp.command("check")
@click.argument("name", required=False)
@config_option
@_JSON
def check(name: str | None, config_path: Path | None, as_json: bool) -> None:
    """Start NAME (default: every server, lazy ones too), list its tools, report timings and errors.

    Exits 1 when a server failed.
    """
    with handled():
        from quorum.cli.container import build_container
        from quorum.infrastructure.tools.settings import ToolsSettings

        container = build_container(AppOptions(config_path=config_path))
        source = mcp_source(config_path, container=container)
        if name is not None and name not in source.connections:
            known = ", ".join(sorted(source.connections)) or "none configured"
            raise UsageError(f"no MCP server named {name!r} (configured: {known})")
        results = asyncio.run(check_servers(source, name, overrides=container.settings().section(ToolsSettings).risk))
        for r in results:
            if as_json:
                click.echo(json.dumps(r))
            elif r["ok"]:
                _say_check(r)
            else:
                click.echo(f"FAIL  {printable(r['name'])}: {printable(r['error'])}")
        failed = [r["name"] for r in results if not r["ok"]]
        if failed:
            raise RunFailure(f"MCP server check failed: {', '.join(failed)}")


def _say_check(r: dict[str, Any]) -> None:
    """One line for the server, then one per tool: risk, name, how it is offered or why it is not."""
    count = len(r["tools"])
    click.echo(f"ok    {printable(r['name'])}: started in {r['start_seconds']:.2f} s, {count} tool{'s' * (count != 1)}")
    width = min(max((len(t["name"]) for t in r["tools"]), default=0), 32)
    for tool in r["tools"]:
        if tool["not_offered"]:
            note = f"not offered: {tool['not_offered']}"
        elif tool["as"] != f"mcp__{r['name']}__{tool['name']}":  # cut short or sanitised
            note = f"offered as {tool['as']}"
        else:
            note = ""
        line = f"      {tool['risk']:<6}{tool['name']:<{width}}  {note}".rstrip()
        click.echo(printable(line))
    if r["instructions"]:
        click.echo(f"      (instructions: {r['instructions']} characters, added to the system prompt)")


async def check_servers(
    source: Any, name: str | None = None, *, overrides: Mapping[str, RiskLevel] | None = None
) -> list[dict[str, Any]]:
    """Start each server (``name``: only that one; lazy ones too), list its tools, then close them.

    One dict per server: ``name``, ``ok``, ``required`` (its failure would end a run), ``lazy``;
    when ok ``start_seconds``, ``tools`` (each with its ``risk`` and ``risk_reason``, ``[tools]
    risk`` ``overrides`` applied) and ``instructions`` (their length); else ``error`` and
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
                    "not_offered": tool.not_offered_because,
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


from quorum.cli.commands import mcp_auth  # noqa: E402  (login/logout live in their own module)

for _command in (mcp_auth.login, mcp_auth.logout):
    mcp.add_command(_command)
