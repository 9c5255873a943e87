"""Built-in plugin ``quorum.engine``: declares ``[engine]``, which engine runs tasks.

The engines themselves are chosen by the composition from this section; the Temporal SDK is
imported only when a Temporal run or worker starts.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.infrastructure.engines.settings import EngineSettings
from quorum.infrastructure.plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.registries import ConfigSectionRegistry


@hookimpl
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    registry.add("engine", EngineSettings)
