"""``quorum agents list``: the subagents the model may delegate to (docs/subagents.md)."""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions

if TYPE_CHECKING:  # the container is imported only when a command runs: ``quorum --help`` stays fast
    from quorum.composition.container import Container


@click.group()
def agents() -> None:
    """Subagents the model may delegate tasks to."""


@agents.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per subagent.")
@config_option
@click.option("--workspace", "-w", type=click.Path(path_type=Path, file_okay=False), help="Workspace directory.")
def list_agents(as_json: bool, config_path: Path | None, workspace: Path | None) -> None:
    """List subagents: name, risk (the highest of its tools'), model, tools, where defined."""
    from quorum.cli.compose import compose

    overrides = {"tools": {"workspace": str(workspace.resolve())}} if workspace else {}
    with handled():
        container = compose(AppOptions(config_path=config_path, overrides=overrides))
        rows = asyncio.run(_rows(container))
    if as_json:
        for row in rows:
            click.echo(json.dumps(row))
        return
    if not rows:
        click.echo("no subagents defined (see docs/subagents.md)", err=True)
    width = max((len(row["name"]) for row in rows), default=4)
    for row in rows:
        first = (row["description"].splitlines() or [""])[0][:70]
        click.echo(f"{row['name']:<{width}}  {row['risk']:<4}  {row['model'] or '(the run’s model)':<24} {first}")
        click.echo(f"{'':<{width}}  tools: {', '.join(row['allowed']) or '(none available)'}  [{row['source']}]")


async def _rows(container: Container) -> list[dict[str, Any]]:
    from quorum.application.delegation import risk_of

    defined = container.subagents()
    if not defined:
        return []
    executor = container.tool_executor()
    try:
        spec = await executor.list_tools()
    finally:
        await executor.aclose()
    return [
        {
            "name": agent.name,
            "description": agent.description,
            "risk": risk_of(agent, spec).value,
            "model": agent.model,
            "tools": list(agent.tools),
            "allowed": agent.allowed(spec.names()),
            "max_tool_turns": agent.max_tool_turns,
            "reasoning": agent.reasoning,
            "source": agent.source,
        }
        for agent in defined.values()
    ]
