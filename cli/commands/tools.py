"""``quorum tools list``."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.listing import tool_row
from quorum.composition.options import AppOptions

if TYPE_CHECKING:  # the container is imported only when a command runs: ``quorum --help`` stays fast
    from quorum.composition.container import Container
    from quorum.infrastructure.tools.executor import ListedTool


@click.group()
def tools() -> None:
    """Tools available to the model."""


@tools.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per tool.")
@config_option
@click.option("--workspace", "-w", type=click.Path(path_type=Path, file_okay=False), help="Workspace directory.")
def list_tools(as_json: bool, config_path: Path | None, workspace: Path | None) -> None:
    """List tools: name, risk and the plugin/source they come from."""
    from quorum.cli.compose import compose

    overrides = {"tools": {"workspace": str(workspace.resolve())}} if workspace else {}
    with handled():
        container = compose(AppOptions(config_path=config_path, overrides=overrides))
        listed, problems = asyncio.run(_listed(container))
        status = container.sandbox()
    rows = [tool_row(t, status.describe()) for t in listed]
    if as_json:
        for row in rows:
            click.echo(json.dumps(row))
    else:
        width = max((len(r["name"]) for r in rows), default=4)
        for row in rows:
            first = (row["description"].splitlines() or [""])[0][:70]
            click.echo(f"{row['name']:<{width}}  {row['risk']:<4}  {row['source']:<18} {first}")
            if "sandbox" in row:
                click.echo(f"{'':<{width}}  {'':<4}  {'':<18} ↳ {row['sandbox']}: {status.explain()}")
        if not rows:
            click.echo("no tools available", err=True)
    for problem in problems:
        click.echo(f"quorum: warning: {problem}", err=True)


async def _listed(container: Container) -> tuple[list[ListedTool], list[str]]:
    executor = container.tool_executor()
    try:
        listed = await executor.listed_tools()
    finally:
        await executor.aclose()
    return listed, list(executor.problems)
