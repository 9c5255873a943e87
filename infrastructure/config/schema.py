"""The whole quorum.toml schema, assembled from each feature's section model."""

from __future__ import annotations

from typing import Any

from pydantic import ConfigDict, Field, field_validator

from quorum.infrastructure.config.sections import AgentSettings, PluginsSettings, Section
from quorum.infrastructure.engines.settings import EngineSettings
from quorum.infrastructure.mcp.settings import McpSettings
from quorum.infrastructure.review.settings import ReviewSettings
from quorum.infrastructure.secrets import SecretsSettings
from quorum.infrastructure.storage.settings import StorageSettings
from quorum.infrastructure.tools.settings import ToolsSettings


class Settings(Section):
    """The effective configuration.

    ``providers`` holds each ``[providers.NAME]`` section already validated by its provider kind's
    own model; ``extensions`` holds plugin-declared top-level sections, validated by their models.
    ``aliases`` (``[aliases] fast = "openai:gpt-4.1-mini"``) names model ids for ``--model``.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    model: str | None = None
    aliases: dict[str, str] = Field(default_factory=dict)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    review: ReviewSettings = Field(default_factory=ReviewSettings)
    providers: dict[str, Any] = Field(default_factory=dict)
    tools: ToolsSettings = Field(default_factory=ToolsSettings)
    mcp: McpSettings = Field(default_factory=McpSettings)
    storage: StorageSettings = Field(default_factory=StorageSettings)
    engine: EngineSettings = Field(default_factory=EngineSettings)
    plugins: PluginsSettings = Field(default_factory=PluginsSettings)
    secrets: SecretsSettings = Field(default_factory=SecretsSettings)
    extensions: dict[str, Any] = Field(default_factory=dict)

    @field_validator("aliases")
    @classmethod
    def _check_aliases(cls, aliases: dict[str, str]) -> dict[str, str]:
        for name, target in aliases.items():
            if not name or ":" in name:
                raise ValueError(f"alias {name!r}: a name without ':' (it stands for a provider:model id)")
            if not target.strip() or target.strip() in aliases:
                raise ValueError(f"alias {name!r}: expected a model id 'provider:model', got {target!r}")
        return {name: target.strip() for name, target in aliases.items()}


CORE_KEYS = frozenset(name for name in Settings.model_fields if name != "extensions")
"""Top-level keys Quorum owns; plugins may declare any other."""
