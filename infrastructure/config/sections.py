"""The core sections of quorum.toml, each a pydantic model that forbids unknown keys.

Feature-specific sections (``[tools]``, ``[mcp]``, ``[review]``, ``[storage]``) live beside the
feature that reads them and are assembled here into one schema.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, ConfigDict, Field

from quorum.application.execution import ExecutionParams, TurnLimitPolicy


class Section(BaseModel):
    """Base of every config section: unknown keys are errors."""

    model_config = ConfigDict(extra="forbid", frozen=True)


class AgentSettings(Section):
    """``[agent]``: how runs behave (see ExecutionParams for each key)."""

    max_tool_turns: int = Field(10, ge=1)
    timeout_seconds: float = Field(300.0, gt=0)
    tool_timeout_seconds: float = Field(60.0, gt=0)
    max_parallel_tools: int = Field(8, ge=1)
    on_turn_limit: TurnLimitPolicy = "summarize"
    max_rejections: int = Field(3, ge=1)
    max_total_tokens: int | None = Field(None, ge=1)
    system_prompt: str | None = None
    stream: bool = True

    def execution_params(self, **overrides: Any) -> ExecutionParams:
        """The run parameters these settings describe, with per-run overrides."""
        data = self.model_dump(exclude={"system_prompt"})
        data.update(overrides)
        return ExecutionParams(**data)


class PluginsSettings(Section):
    """``[plugins]``: ``blocked`` names plugins (built-in or third-party) not to load."""

    blocked: list[str] = Field(default_factory=list)
