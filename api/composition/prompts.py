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
    where = workspace if workspace is not None else workspace_of(settings)
    default = LEAN_SYSTEM_PROMPT if lean else DEFAULT_SYSTEM_PROMPT
    prompt = str(settings.agent.system_prompt or default.format(workspace=where))
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
    from quorum.infrastructure.plugins.contracts import ToolSourceNotes

    notes = list(await executor.prompt_notes()) if isinstance(executor, ToolSourceNotes) else []
    return "\n\n".join([prompt or "", *notes]).strip() if notes else prompt
