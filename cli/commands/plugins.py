"""``quorum plugins list``."""

from __future__ import annotations

import json
from pathlib import Path

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions


@click.group()
def plugins() -> None:
    """Installed plugins."""


@plugins.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per plugin.")
@config_option
def list_plugins(as_json: bool, config_path: Path | None) -> None:
    """List plugins: name, version, what each registered, and whether it is blocked."""
    from quorum.cli.compose import compose
    from quorum.cli.main import BUILTIN_COMMANDS

    with handled():
        catalog = compose(AppOptions(config_path=config_path)).catalog()
        catalog.commands(frozenset(BUILTIN_COMMANDS))
        registrations = catalog.registrations()
    for info in catalog.plugins:
        registered = [
            {"kind": r.kind, "name": r.name, "description": r.description}
            for r in registrations
            if r.plugin == info.name
        ]
        row = {
            "name": info.name,
            "version": info.version,
            "builtin": info.builtin,
            "blocked": info.blocked,
            "distribution": info.distribution,
            "registered": registered,
        }
        if as_json:
            click.echo(json.dumps(row))
            continue
        state = " (blocked)" if info.blocked else ""
        origin = "built-in" if info.builtin else f"{info.distribution or '?'} {info.version or ''}".strip()
        click.echo(f"{info.name}{state}  [{origin}]")
        for item in registered:
            click.echo(f"    {item['kind']}: {item['name']}")
