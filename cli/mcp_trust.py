"""``quorum mcp pins [SERVER]`` and ``quorum mcp trust SERVER [TOOL…]``: pinned MCP tool definitions.

``pins`` reads the pin files (no server is started). ``trust`` starts the server, lists its tools,
shows a diff of every tool that differs from its pin (or is new), and pins them as they are now
once the person says yes (``--yes``: without asking). Server text is shown through ``printable``:
a poisoned description must not drive the terminal.
"""

from __future__ import annotations

import asyncio
import datetime
import difflib
import json
from pathlib import Path
from typing import Any

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions
from quorum.domain.errors import RunFailure, UsageError
from quorum.infrastructure.terminal_text import printable


def _source(config_path: Path | None) -> Any:
    from quorum.cli.compose import compose
    from quorum.cli.mcp_servers import mcp_source

    return mcp_source(compose(AppOptions(config_path=config_path)))


def _server(source: Any, name: str) -> Any:
    """The connection of server ``name``, whose tools are pinned.

    Raises:
        UsageError: no such server, or pinning is off for it (or there is no data dir).
    """
    connection = source.connections.get(name)
    if connection is None:
        known = ", ".join(sorted(source.connections)) or "none configured"
        raise UsageError(f"no MCP server named {name!r} (configured: {known})")
    if not source.pins.active(connection.settings):
        raise UsageError(f"MCP server {name!r} is not pinned ([mcp.servers.{name}] pin = false)")
    return connection


@click.command("pins")
@click.argument("server", required=False)
@config_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per server.")
def pins(server: str | None, config_path: Path | None, as_json: bool) -> None:
    """The pinned tool definitions of SERVER (default: every configured server)."""
    with handled():
        source = _source(config_path)
        names = [server] if server is not None else sorted(source.connections)
        rows = [_pins_row(source, _server(source, n) if server else source.connections[n]) for n in names]
    for row in rows:
        if as_json:
            click.echo(json.dumps(row))
            continue
        if not row["pin"]:
            click.echo(f"{printable(row['server'])}: not pinned (pin = false)")
        elif row["tools"] is None:
            click.echo(f"{printable(row['server'])}: nothing pinned yet (pinned on its first run)")
        else:
            click.echo(f"{printable(row['server'])}: {len(row['tools'])} pinned tools ({row['path']})")
            for tool in row["tools"]:
                click.echo(printable(f"  {tool['sha256'][:16]}  {tool['pinned_at']}  {tool['name']}"))


def _pins_row(source: Any, connection: Any) -> dict[str, Any]:
    store, settings = source.pins.store, connection.settings
    row: dict[str, Any] = {"server": connection.name, "pin": source.pins.active(settings), "path": None, "tools": None}
    if not row["pin"]:
        return row
    row["path"] = str(store.path(connection.name, settings))
    loaded = store.load(connection.name, settings)
    if loaded is not None:
        row["tools"] = [
            {"name": name, "sha256": pin.sha256, "pinned_at": _when(pin.pinned_at), "definition": pin.definition}
            for name, pin in sorted(loaded.items())
        ]
    return row


def _when(timestamp: float) -> str:
    return datetime.datetime.fromtimestamp(timestamp, tz=datetime.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


@click.command("trust")
@click.argument("server")
@click.argument("tools", nargs=-1)
@config_option
@click.option("--yes", "-y", is_flag=True, help="Trust the changes without asking.")
def trust(server: str, tools: tuple[str, ...], config_path: Path | None, yes: bool) -> None:
    """Review and trust the changed or new tools of SERVER (only TOOLS, when named).

    Starts the server, shows a diff of each tool that differs from its pin, and pins them as they
    are now. Exits 1 when the person says no.
    """
    with handled():
        source = _source(config_path)
        connection = _server(source, server)
        check = asyncio.run(_check(source, connection))
        live = {t.name for t in check.trusted} | {w.tool.name for w in check.withheld}
        unknown = [t for t in tools if t not in live]
        if unknown:
            raise UsageError(f"MCP server {server!r} offers no tool named {', '.join(map(repr, unknown))}")
        chosen = [w for w in check.withheld if not tools or w.tool.name in tools]
        if not chosen:
            click.echo(f"{printable(server)}: every tool matches its pin; nothing to trust")
            return
        for withheld in chosen:
            _show_diff(withheld)
        count = f"{len(chosen)} tool{'s' * (len(chosen) != 1)}"
        if not yes and not click.confirm(f"Trust {count} of {printable(server)} as shown?", default=False):
            raise RunFailure("nothing was trusted")
        path = source.pins.store.trust(server, connection.settings, [w.tool for w in chosen])
        click.echo(f"trusted {count} of {printable(server)} ({path})")


async def _check(source: Any, connection: Any) -> Any:
    try:
        await connection.start()
        tools = await connection.tool_list()
    finally:
        await source.aclose()
    from quorum.infrastructure.mcp.pins import PinCheck, Withheld

    check = source.pins.store.check(connection.name, connection.settings, tools)
    if not check.pinned:  # never pinned: every tool is new
        return PinCheck(trusted=[], withheld=[Withheld(t, ["new"], None) for t in tools], pinned=False)
    return check


def _show_diff(withheld: Any) -> None:
    """The tool's changes as unified diffs of pretty JSON, field by field (all of it when new)."""
    from quorum.infrastructure.mcp.pins import CHANGE_FIELDS

    name = withheld.tool.name
    if withheld.pinned is None:
        click.echo(printable(f"tool {name}: new"))
        for line in _pretty(withheld.tool.definition):
            click.echo(printable(f"  + {line}"))
        return
    click.echo(printable(f"tool {name}: changed ({', '.join(withheld.change)})"))
    for change, key in CHANGE_FIELDS:
        if change not in withheld.change:
            continue
        before, after = _pretty(withheld.pinned.get(key)), _pretty(withheld.tool.definition.get(key))
        diff = difflib.unified_diff(before, after, f"pinned {key}", f"offered {key}", lineterm="", n=2)
        for line in diff:
            click.echo(printable(f"  {line}"))


def _pretty(value: Any) -> list[str]:
    return json.dumps(value, indent=2, sort_keys=True, ensure_ascii=False).splitlines() if value is not None else []
