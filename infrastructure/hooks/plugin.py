"""Built-in plugin ``quorum.hooks``: declares ``[hooks]``.

The composition builds the runner (``ShellHookRunner``) from the hooks of every configuration
layer (``configured_hooks``); nothing is started until a run's event names a hook.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.infrastructure.hooks.settings import HooksSettings
from quorum.infrastructure.plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.registries import ConfigSectionRegistry


@hookimpl
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    registry.add("hooks", HooksSettings)
