"""The conventions a workspace brings, found for a run: AGENTS.md, prompt commands, skills.

The readers are in ``quorum.infrastructure.conventions``; this module says where they look (the
workspace, its repository, the user config dir) and what ``[agent] project_instructions``
turns off, and expands a ``/NAME args`` task into its command's prompt for every driver.
"""

from __future__ import annotations

import fnmatch
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from quorum.composition.paths import workspace_of
from quorum.domain.errors import UsageError
from quorum.infrastructure.conventions.commands import (
    PromptCommand,
    PromptCommands,
    command_places,
    find_commands,
)
from quorum.infrastructure.conventions.commands import invocation as command_invocation
from quorum.infrastructure.conventions.instructions import ProjectInstructions, find_instructions
from quorum.infrastructure.conventions.skill_tool import LOAD_SKILL
from quorum.infrastructure.conventions.skills import Skills, find_skills, skill_places
from quorum.infrastructure.tools.settings import ToolsSettings

if TYPE_CHECKING:
    from quorum.infrastructure.config.schema import Settings


@dataclass(frozen=True)
class Conventions:
    """What goes into a run's system prompt: the project instructions and the skills' list."""

    instructions: ProjectInstructions = field(default_factory=ProjectInstructions)
    skills: Skills = field(default_factory=Skills)

    def prompt_sections(self) -> list[str]:
        """The system prompt's sections, in order (none when there is nothing)."""
        return [part for part in (self.instructions.prompt_section(), self.skills.prompt_section()) if part]


@dataclass(frozen=True)
class Expanded:
    """A task after command expansion: the prompt, and the command's model and plan (None: not set)."""

    task: str
    command: PromptCommand | None = None

    @property
    def model(self) -> str | None:
        """The command's ``model``, if any."""
        return self.command.model if self.command is not None else None

    @property
    def plan(self) -> bool | None:
        """True when the command asks for plan mode; None leaves it to the run."""
        return True if self.command is not None and self.command.plan else None


def find_conventions(settings: Settings, config_dir: Path | None, workspace: Path | None = None) -> Conventions:
    """The project instructions (unless ``[agent] project_instructions = false``) and skills of the workspace.

    Skills are listed only when ``load_skill`` is offered (``[tools] enabled``/``disabled``): a
    list the model could not act on would only cost tokens.
    """
    where = (workspace or workspace_of(settings)).resolve()
    instructions = find_instructions(where) if settings.agent.project_instructions else ProjectInstructions()
    offered = _offered(LOAD_SKILL.name, settings.section(ToolsSettings))
    return Conventions(instructions, find_skills(skill_places(where, config_dir)) if offered else Skills())


def _offered(name: str, tools: ToolsSettings) -> bool:
    """Whether ``[tools]`` offers the tool ``name`` (the executor's rule: ``disabled`` wins over ``enabled``)."""
    if any(fnmatch.fnmatchcase(name, pattern) for pattern in tools.disabled):
        return False
    return not tools.enabled or any(fnmatch.fnmatchcase(name, pattern) for pattern in tools.enabled)


def prompt_commands(settings: Settings, config_dir: Path | None) -> PromptCommands:
    """The prompt commands of the workspace and the user (read anew at each call: they are small)."""
    return find_commands(command_places(workspace_of(settings), config_dir))


def expand(text: str, commands: PromptCommands, *, strict: bool = True) -> Expanded:
    """``text`` with a leading ``/NAME args`` replaced by the command's prompt.

    ``//x`` sends ``/x`` as it is. ``strict``: an unknown ``/NAME`` is a mistake (``quorum run``,
    the server) rather than text for the model (an editor, which announces the known ones).

    Raises:
        UsageError: ``strict`` and ``/NAME`` names no prompt command.
    """
    stripped = text.lstrip()
    if stripped.startswith("//"):
        return Expanded(stripped[1:])
    called = command_invocation(stripped)
    if called is None:
        return Expanded(text)
    name, arguments = called
    command = commands.get(name)
    if command is None:
        if not strict:
            return Expanded(text)
        if name in commands.refused:
            raise UsageError(f"/{name} is not a prompt command: {commands.refused[name]}")
        known = ", ".join(f"/{known}" for known in commands.commands) or "none"
        raise UsageError(
            f"unknown command /{name}: no .quorum/commands/{name}.md in the workspace nor in the user config "
            f"dir's commands/ (known: {known}); to send text starting with '/', start it with '//'"
        )
    return Expanded(command.prompt(arguments), command)
