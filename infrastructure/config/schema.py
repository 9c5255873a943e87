"""The quorum.toml schema Quorum itself owns, and typed access to the sections plugins declare.

Feature sections (``[tools]``, ``[mcp]``, ``[review]``, ``[storage]``, ``[engine]``, ``[secrets]``)
are declared by the built-in plugins through ``quorum_register_config_sections``, exactly as a
third-party plugin declares its own; this module knows none of them.
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, SerializeAsAny, field_validator

from quorum.infrastructure.agents.definitions import SubagentTable
from quorum.infrastructure.config.sections import AgentSettings, PluginsSettings, Section

SectionModel = TypeVar("SectionModel", bound=BaseModel)


class Settings(Section):
    """The effective configuration.

    ``providers`` holds each ``[providers.NAME]`` section already validated by its provider kind's
    own model; ``extensions`` holds every plugin-declared top-level section (the built-in plugins'
    ones included), validated by its model and read typed with ``section``.
    ``aliases`` (``[aliases] fast = "openai:gpt-4.1-mini"``) names model ids for ``--model``.
    ``agents`` holds the ``[agents.NAME]`` subagent tables (docs/subagents.md).
    """

    model_config = ConfigDict(extra="forbid", frozen=True, arbitrary_types_allowed=True)

    model: str | None = None
    aliases: dict[str, str] = Field(default_factory=dict)
    agent: AgentSettings = Field(default_factory=AgentSettings)
    providers: dict[str, Any] = Field(default_factory=dict)
    plugins: PluginsSettings = Field(default_factory=PluginsSettings)
    extensions: dict[str, SerializeAsAny[BaseModel]] = Field(default_factory=dict)
    agents: dict[str, SubagentTable] = Field(default_factory=dict)

    @field_validator("aliases")
    @classmethod
    def _check_aliases(cls, aliases: dict[str, str]) -> dict[str, str]:
        for name, target in aliases.items():
            if not name or ":" in name:
                raise ValueError(f"alias {name!r}: a name without ':' (it stands for a provider:model id)")
            if not target.strip() or target.strip() in aliases:
                raise ValueError(f"alias {name!r}: expected a model id 'provider:model', got {target!r}")
        return {name: target.strip() for name, target in aliases.items()}

    def section(self, model: type[SectionModel]) -> SectionModel:
        """The validated section whose model is ``model``: ``settings.section(ToolsSettings)``.

        A section no loaded plugin declared (its plugin is blocked, or these settings were built
        without it) reads as the model's defaults.

        Raises:
            pydantic.ValidationError: the section is missing and ``model`` has required keys.
        """
        for value in self.extensions.values():
            if type(value) is model:
                return value
        return model.model_validate({})

    def with_sections(self, *sections: BaseModel) -> Settings:
        """A copy with each of ``sections`` in place of the section of its model (a per-run change).

        Raises:
            KeyError: no section of that model is present (build ``Settings(extensions=...)`` instead).
        """
        keys = {type(value): key for key, value in self.extensions.items()}
        replaced = {keys[type(value)]: value for value in sections}
        return self.model_copy(update={"extensions": {**self.extensions, **replaced}})


CORE_KEYS = frozenset(name for name in Settings.model_fields if name != "extensions")
"""Top-level keys Quorum owns; plugins may declare any other."""
