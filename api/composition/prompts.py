"""The agent's system prompt: the configured one or the default, and the tool sources' notes after it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from quorum.application.execution import DEFAULT_SYSTEM_PROMPT, LEAN_SYSTEM_PROMPT, ExecutionParams
from quorum.composition.paths import workspace_of
from quorum.domain.tool_profile import choose

if TYPE_CHECKING:
    from quorum.composition.conventions import Conventions
    from quorum.infrastructure.config.schema import Settings


def system_prompt(
    settings: Settings,
    workspace: Path | None = None,
    *,
    lean: bool = False,
    conventions: Conventions | None = None,
) -> str:
    """The agent's system prompt: ``[agent] system_prompt``, else the default naming the workspace.

    ``workspace`` replaces the configured one (a batch task's own workspace); ``lean``: the lean
    tool profile's shorter default. ``conventions``: the project instructions (AGENTS.md) and the
    skills' list follow, in either profile.
    """
    configured = settings.agent.system_prompt
    if configured:
        prompt = str(configured)
    else:  # only the default names the workspace: resolving it is a look at the file system
        where = workspace if workspace is not None else workspace_of(settings)
        prompt = (LEAN_SYSTEM_PROMPT if lean else DEFAULT_SYSTEM_PROMPT).format(workspace=where)
    sections = conventions.prompt_sections() if conventions is not None else []
    return "\n\n".join([prompt, *sections])


def with_profile(params: ExecutionParams, model_id: str, windows: Any) -> ExecutionParams:
    """``params`` with the tools profile decided: the configured one, else by the model's context window."""
    window = params.context_window or windows.context_window(model_id)
    return params.model_copy(update={"tools_profile": choose(params.tools_profile, window)})


async def with_tool_notes(prompt: str | None, executor: Any) -> str | None:
    """``prompt`` followed by the tool sources' notes (MCP server instructions), when there are any.

    Starts the eager MCP servers, as listing the tools would; their start events are said at the
    run's start.
    """
    # What isinstance(executor, ToolSourceNotes) decides, without walking the protocol each run.
    prompt_notes = getattr(executor, "prompt_notes", None)
    notes = list(await prompt_notes()) if prompt_notes is not None else []
    return "\n\n".join([prompt or "", *notes]).strip() if notes else prompt
