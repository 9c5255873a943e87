"""Which engine runs execute on: the one place ``[engine] kind`` is read.

``local`` runs in this process through the run service; ``temporal`` starts each run as a
workflow on the workers (decisions 110 and 111). ``--engine`` is a config override of the same
key, so every driver asks ``engine_kind`` and none reads the section itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal

if TYPE_CHECKING:
    from quorum.infrastructure.config.schema import Settings
    from quorum.infrastructure.engines.settings import EngineSettings

EngineKind = Literal["local", "temporal"]


def engine_kind(settings: Settings) -> EngineKind:
    """The engine of runs started with ``settings`` (``[engine] kind``, ``--engine`` included)."""
    from quorum.infrastructure.engines.settings import EngineSettings

    kind: EngineKind = settings.section(EngineSettings).kind
    return kind


def temporal_settings(settings: Settings) -> EngineSettings:
    """``[engine]`` of ``settings`` after checking that the Temporal SDK is installed.

    Raises:
        ConfigurationError: the ``temporal`` extra is missing.
    """
    from quorum.infrastructure.engines.settings import EngineSettings, require_temporal

    require_temporal()
    return settings.section(EngineSettings)
