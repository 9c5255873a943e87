"""The core sections of quorum.toml, each a pydantic model that forbids unknown keys.

Feature-specific sections (``[tools]``, ``[mcp]``, ``[review]``, ``[storage]``) live beside the
feature that reads them and are assembled here into one schema.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from quorum.application.execution import ExecutionParams, LoopLimits


class Section(BaseModel):
    """Base of every config section: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class AgentSettings(LoopLimits):
    """``[agent]``: the loop limits (keys, defaults and bounds of LoopLimits) and the system prompt.

    ``project_instructions``: the AGENTS.md files (CLAUDE.md where there is none) from the
    repository root down to the workspace go into the system prompt (docs/conventions.md).
    """

    model_config = Section.model_config
    system_prompt: str | None = None
    project_instructions: bool = True

    def execution_params(self, **overrides: Any) -> ExecutionParams:
        """The run parameters these settings describe, with per-run overrides."""
        data = self.model_dump(exclude={"system_prompt", "project_instructions"})
        data.update(overrides)
        return ExecutionParams(**data)


class PluginsSettings(Section):
    """``[plugins]``: ``blocked`` names plugins (built-in or third-party) not to load."""

    blocked: list[str] = Field(default_factory=list)
