"""``quorum skills list`` and ``quorum commands list``; the ``quorum doctor`` lines on AGENTS.md, commands, skills."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions

workspace_option = click.option(
    "--workspace", "-w", type=click.Path(path_type=Path, file_okay=False), help="Workspace directory."
)


def _container(config_path: Path | None, workspace: Path | None) -> Any:
    from quorum.cli.compose import compose

    overrides = {"tools": {"workspace": str(workspace.resolve())}} if workspace else {}
    return compose(AppOptions(config_path=config_path, overrides=overrides))


@click.group()
def skills() -> None:
    """Skills: SKILL.md folders the model loads on demand (load_skill)."""


@skills.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per skill.")
@config_option
@workspace_option
def list_skills(as_json: bool, config_path: Path | None, workspace: Path | None) -> None:
    """List skills: name, where it was found, description; then the folders refused."""
    from quorum.infrastructure.terminal_text import printable

    with handled():
        found = _container(config_path, workspace).conventions().skills
    for skill in found.skills:
        row = {
            "name": skill.name,
            "source": skill.source,
            "path": str(skill.directory),
            "description": skill.description,
        }
        if as_json:
            click.echo(json.dumps(row))
        else:
            click.echo(printable(f"{skill.name}  ({skill.source}: {skill.directory})\n    {skill.description}"))
    if not found.skills and not as_json:
        click.echo("no skills (.agents/skills/, .quorum/skills/, the user config dir's skills/)", err=True)
    for problem in found.problems:
        click.echo(f"quorum: warning: skill not loaded: {printable(problem)}", err=True)


@click.group()
def commands() -> None:
    """Prompt commands: Markdown files that become /NAME."""


@commands.command("list")
@click.option("--json", "as_json", is_flag=True, help="One JSON object per command.")
@config_option
@workspace_option
def list_commands(as_json: bool, config_path: Path | None, workspace: Path | None) -> None:
    """List prompt commands: /NAME, where it was found, description; then the files refused."""
    from quorum.composition.conventions import prompt_commands
    from quorum.infrastructure.terminal_text import printable

    with handled():
        container = _container(config_path, workspace)
        found = prompt_commands(container.settings(), container.config_dir())
    for command in found.commands.values():
        row = {
            "name": command.name,
            "source": command.source,
            "path": str(command.path),
            "description": command.description,
            "model": command.model,
            "plan": command.plan,
        }
        if as_json:
            click.echo(json.dumps(row))
        else:
            click.echo(printable(f"/{command.name}  ({command.source}: {command.path})\n    {command.description}"))
    if not found.commands and not as_json:
        click.echo("no prompt commands (.quorum/commands/, the user config dir's commands/)", err=True)
    for problem in found.problems:
        click.echo(f"quorum: warning: command not loaded: {printable(problem)}", err=True)


def doctor_checks(container: Any) -> list[tuple[str, str, str]]:
    """``quorum doctor``'s lines (check, status, detail): the instructions read, the commands, the skills.

    They apply in an untrusted workspace too (they only reach the model), so they are listed here.
    """
    from quorum.composition.conventions import prompt_commands

    settings = container.settings()
    found = container.conventions()
    instructions = found.instructions
    if not settings.agent.project_instructions:
        lines = [("instructions", "ok", "off ([agent] project_instructions = false)")]
    else:
        read = ", ".join(instructions.names) or "none (no AGENTS.md or CLAUDE.md from the repository root down)"
        status = "warn" if instructions.truncated or instructions.skipped else "ok"
        cut = " (cut at 32 KiB)" if instructions.truncated else ""
        skipped = "".join(f"; not read: {reason}" for reason in instructions.skipped)
        lines = [("instructions", status, f"{read}{cut}{skipped}")]
    commands_found = prompt_commands(settings, container.config_dir())
    names = ", ".join(f"/{name}" for name in commands_found.commands) or "none"
    refused = "".join(f"; refused {problem}" for problem in commands_found.problems)
    lines.append(("commands", "warn" if refused else "ok", f"{names}{refused}"))
    skill_names = ", ".join(skill.name for skill in found.skills.skills) or "none"
    skill_problems = "".join(f"; not loaded {problem}" for problem in found.skills.problems)
    lines.append(("skills", "warn" if skill_problems else "ok", f"{skill_names}{skill_problems}"))
    return lines
