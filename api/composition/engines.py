"""Where runs execute: the engine port, and the one place ``[engine] kind`` is read.

``local`` runs in this process through the run service; ``temporal`` starts each run as a
workflow on the workers (decisions 110 and 111). ``--engine`` is a config override of the same
key, so every driver asks ``engine_kind`` (or ``engine_for``) and none reads the section itself.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Literal, Protocol

if TYPE_CHECKING:
    from quorum.application.execution import RunResult
    from quorum.composition.orders import RunOrder
    from quorum.composition.runtime import Runtime
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


class RunEngine(Protocol):
    """Runs one order to its stop on an engine: this process, or a workflow on Temporal workers."""

    async def run(self, order: RunOrder) -> RunResult:
        """Run ``order`` to its end or its stop ``awaiting_approval``; its observers see its events.

        Raises:
            UsageError: the run could not start (no model, an unknown one); nothing was recorded.
            RunFailure: the engine lost the run (a workflow failed without recording its end).
        """
        ...


class LocalEngine:
    """The local engine: runs in this process, through the run service of ``runtime``."""

    def __init__(self, runtime: Runtime) -> None:
        from quorum.composition.service import RunService

        self._service = RunService(runtime)

    async def run(self, order: RunOrder) -> RunResult:
        return await self._service.run(order)


def engine_for(runtime: Runtime) -> RunEngine:
    """The engine runs of ``runtime`` execute on, as ``[engine] kind`` says.

    Raises:
        ConfigurationError: ``temporal`` without the ``temporal`` extra.
    """
    settings = runtime.container.settings()
    if engine_kind(settings) == "temporal":
        from quorum.composition.temporal_engine import TemporalEngine

        temporal_settings(settings)  # a missing extra is said now, before any run
        return TemporalEngine(runtime)
    return LocalEngine(runtime)
