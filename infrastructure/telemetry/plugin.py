"""The built-in plugin ``quorum.telemetry``: it declares the ``[telemetry]`` section."""

from __future__ import annotations

from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.registries import ConfigSectionRegistry
from quorum.infrastructure.telemetry.settings import TelemetrySettings


@hookimpl
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    registry.add("telemetry", TelemetrySettings)
