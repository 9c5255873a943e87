"""``quorum hooks list``: the configured hooks, and those an untrusted workspace set (not run)."""

from __future__ import annotations

import json
from pathlib import Path

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions


@click.group()
def hooks() -> None:
    """Hooks: your commands run on a run's events ([[hooks.EVENT]] in quorum.toml)."""


@hooks.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per hook.")
@config_option
def list_hooks(as_json: bool, config_path: Path | None) -> None:
    """List each hook: its event, matcher, timeout, command and the file it comes from. Runs none of them."""
    from quorum.cli.compose import compose
    from quorum.infrastructure.hooks.layers import configured_hooks, untrusted_hooks
    from quorum.infrastructure.terminal_text import printable

    with handled():
        container = compose(AppOptions(config_path=config_path))
        container.settings()  # the configuration is valid before anything is listed
        raw = container.raw_config()
        rows = [
            {
                "event": hook.event,
                "matcher": hook.matcher,
                "timeout": hook.timeout,
                "command": hook.command,
                "source": hook.source,
                "applies": True,
            }
            for hook in configured_hooks(raw)
        ]
        rows += [
            {
                "event": event,
                "matcher": None,
                "timeout": None,
                "command": command,
                "source": "workspace (untrusted: not run; see quorum trust)",
                "applies": False,
            }
            for event, command in untrusted_hooks(raw)
        ]
    if as_json:  # JSON escapes every control character
        for row in rows:
            click.echo(json.dumps(row))
        return
    if not rows:
        click.echo("no hooks configured", err=True)
    for row in rows:
        matcher = row["matcher"] if row["matcher"] is not None else "*"
        timeout = f"{row['timeout']:g} s" if row["timeout"] is not None else "-"
        click.echo(printable(f"{row['event']:<18}  {matcher:<16}  {timeout:>6}  {row['command']}"))
        click.echo(printable(f"{'':<18}  from {row['source']}"))
