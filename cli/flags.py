"""Options several commands take, defined once."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import click

config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Extra config file (over ./quorum.toml).",
)
"""``--config PATH``: one more config layer, after ./quorum.toml."""

quiet_option = click.option("--quiet", "-q", is_flag=True, help="Only the answer and the final line.")
"""``-q``: stdout gets only the final answer; stderr only errors and the final line."""

verbose_option = click.option("--verbose", "-v", is_flag=True, help="Full tool results and every vote.")
"""``-v``: every vote, whole tool results, MCP server log lines."""

color_option = click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Color and live status (auto: on a terminal, unless NO_COLOR is set; FORCE_COLOR forces it).",
)
"""``--color auto|always|never``: how a run is drawn (``NO_COLOR``/``FORCE_COLOR`` under auto)."""

events_json_option = click.option("--json", "as_json", is_flag=True, help="One JSON object per event on stdout.")
"""``--json`` of the commands that run: the run events, one JSON object per line, on stdout."""


reasoning_option = click.option(
    "--reasoning",
    type=click.Choice(["off", "low", "medium", "high"]),
    help="How much the model reasons before answering (over [agent] reasoning; default off).",
)
"""``--reasoning off|low|medium|high``: ``[agent] reasoning`` for this run or session."""


project_instructions_option = click.option(
    "--no-project-instructions",
    "no_project_instructions",
    is_flag=True,
    help="Do not put the AGENTS.md (or CLAUDE.md) files into the system prompt.",
)
"""``--no-project-instructions``: ``[agent] project_instructions = false`` for this run or session."""


def instructions_override(overrides: dict[str, Any], off: bool) -> dict[str, Any]:
    """``overrides`` with ``[agent] project_instructions = false`` added when ``off``."""
    if off:
        overrides.setdefault("agent", {})["project_instructions"] = False
    return overrides


def stacked(*decorators: Callable[[Any], Any]) -> Callable[[Any], Any]:
    """One decorator applying ``decorators`` as if written one above the other, in this order."""

    def apply(func: Any) -> Any:
        for decorator in reversed(decorators):
            func = decorator(func)
        return func

    return apply


json_option = click.option("--json", "as_json", is_flag=True, help="JSON lines on stdout.")
"""``--json`` of the run-log commands (``logs``, ``stats``)."""
