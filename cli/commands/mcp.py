"""``quorum mcp list`` and ``quorum mcp check [NAME]``: the configured MCP servers and their health."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import click

from quorum.cli import mcp_login, mcp_trust
from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.cli.mcp_servers import check_servers, mcp_source, pin_states, withheld_because
from quorum.composition.options import AppOptions
from quorum.domain.errors import RunFailure, UsageError
from quorum.infrastructure.terminal_text import printable

_JSON = click.option("--json", "as_json", is_flag=True, help="One JSON object per server.")


@click.group()
def mcp() -> None:
    """MCP servers configured under [mcp.servers]."""


def _row(source: Any, connection: Any) -> dict[str, Any]:
    tools = connection.tools
    cached = False
    if tools is None and connection.state == "idle":
        tools, cached = connection.cached_tools(), True
    settings = connection.settings
    pins = pin_states(source, connection, tools) if tools else {}
    withheld = [(name, withheld_because(connection.name, name, pin)) for name, pin in sorted(pins.items())]
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
        "not_offered": [{"name": name, "reason": reason} for name, reason in withheld if reason],
    }


@mcp.command("list")
@config_option
@_JSON
def list_servers(config_path: Path | None, as_json: bool) -> None:
    """Servers with their state and tool count (eager servers are started, as a run would)."""
    from quorum.cli.compose import compose

    with handled():
        rows = asyncio.run(_list(mcp_source(compose(AppOptions(config_path=config_path)))))
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
        return [_row(source, c) for c in source.connections.values()]
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
        from quorum.cli.compose import compose
        from quorum.infrastructure.tools.settings import ToolsSettings

        container = compose(AppOptions(config_path=config_path))
        source = mcp_source(container)
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
            note = tool["not_offered"]
        elif tool["as"] != f"mcp__{r['name']}__{tool['name']}":  # cut short or sanitised
            note = f"offered as {tool['as']}"
        else:
            note = ""
        pin = {"match": "pinned", "off": "", "unpinned": "not pinned yet"}.get(tool["pin"], "CHANGED")
        line = f"      {tool['risk']:<6}{tool['name']:<{width}}  {pin:<14}{note}".rstrip()
        click.echo(printable(line))
    if r["instructions"]:
        click.echo(f"      (instructions: {r['instructions']} characters, added to the system prompt)")


for _command in (mcp_login.login, mcp_login.logout, mcp_trust.pins, mcp_trust.trust):  # they live in their own module
    mcp.add_command(_command)
