"""The config sections the built-in plugins declare, for tests that validate or build ``Settings``."""

from __future__ import annotations

import functools
from typing import Any

from pydantic import BaseModel

from quorum.infrastructure.config.schema import Settings


@functools.cache
def _sections() -> tuple[tuple[str, type[BaseModel]], ...]:
    from quorum.infrastructure.plugins.manager import load_plugins

    catalog = load_plugins(autoload=False)
    return tuple((entry.name, entry.value) for entry in catalog.config_sections.entries())


def builtin_sections() -> dict[str, type[BaseModel]]:
    """Section key → model, as the container passes them to ``validate``."""
    return dict(_sections())


def settings_with(*sections: BaseModel, **core: Any) -> Settings:
    """``Settings`` holding ``sections`` (each under its built-in key) and the core fields ``core``."""
    keys = {model: key for key, model in _sections()}
    return Settings(**core, extensions={keys[type(section)]: section for section in sections})


def settings_from(data: dict[str, Any]) -> Settings:
    """``Settings`` validated from TOML-shaped ``data`` with the built-in sections, as the loader does."""
    from quorum.infrastructure.config.loader import RawConfig, validate

    return validate(RawConfig(data, {}, ()), provider_models={}, section_models=builtin_sections())
