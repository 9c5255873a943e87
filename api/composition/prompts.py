"""The agent's system prompt: the configured one or the default, and the tool sources' notes after it."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from quorum.application.execution import DEFAULT_SYSTEM_PROMPT
from quorum.composition.paths import workspace_of

if TYPE_CHECKING:
    from quorum.infrastructure.config.schema import Settings


def system_prompt(settings: Settings, workspace: Path | None = None) -> str:
    """The agent's system prompt: ``[agent] system_prompt``, else the default naming the workspace.

    ``workspace`` replaces the configured one (a batch task's own workspace).
    """
    where = workspace if workspace is not None else workspace_of(settings)
    return str(settings.agent.system_prompt or DEFAULT_SYSTEM_PROMPT.format(workspace=where))


async def with_tool_notes(prompt: str | None, executor: Any) -> str | None:
    """``prompt`` followed by the tool sources' notes (MCP server instructions), when there are any.

    Starts the eager MCP servers, as listing the tools would; their start events are said at the
    run's start.
    """
    from quorum.infrastructure.plugins.contracts import ToolSourceNotes

    notes = list(await executor.prompt_notes()) if isinstance(executor, ToolSourceNotes) else []
    return "\n\n".join([prompt or "", *notes]).strip() if notes else prompt
