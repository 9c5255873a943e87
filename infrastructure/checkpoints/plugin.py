"""Built-in plugin ``quorum.checkpoints``: declares ``[checkpoints]`` (see docs/undo.md)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.infrastructure.checkpoints.settings import CheckpointsSettings
from quorum.infrastructure.plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.registries import ConfigSectionRegistry


@hookimpl
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    registry.add("checkpoints", CheckpointsSettings)
