"""Built-in plugin ``quorum.serve``: declares ``[serve]``, the settings of ``quorum serve``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.serve.settings import ServeSettings

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.registries import ConfigSectionRegistry


@hookimpl
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    registry.add("serve", ServeSettings)
