"""The built-in plugin ``quorum.secrets``: it declares the ``[secrets]`` section.

Apart from ``secrets.py`` because the plugin system's contracts import ``KnownSecrets``: the module
that knows secrets must not import the plugin system back.
"""

from __future__ import annotations

from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.registries import ConfigSectionRegistry
from quorum.infrastructure.secrets import SecretsSettings


@hookimpl
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    registry.add("secrets", SecretsSettings)
