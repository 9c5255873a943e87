"""Where runs execute: the engine port, and the one place an engine is chosen.

``local`` runs in this process through the run service; ``temporal`` starts each run as a
workflow on the workers (decisions 110 and 111). ``--engine`` is a config override of
``[engine] kind``: a new run goes to ``engine_for(runtime)``; a recorded run is continued by
``engine_of_run(runtime, run_id)``, chosen by the engine the run was recorded on, not by the
current configuration. Drivers call the port and read its capabilities, never the kind.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar, Literal, Protocol

if TYPE_CHECKING:
    from quorum.application.execution import RunResult
    from quorum.composition.orders import DecisionOrder, RunOrder
    from quorum.composition.runtime import Runtime
    from quorum.composition.temporal_engine import TemporalEngine
    from quorum.domain.events import RunEvent
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
    """Runs orders on an engine: this process, or a workflow on Temporal workers.

    Capabilities (class attributes) say where engines truly differ, so drivers need no kind:

    - ``in_process``: the run executes in this process (the terminal's human port is plugged
      into it; the sandbox requirement, signals and clean-up of a foreground run apply);
    - ``detachable``: a started run goes on without this process (``quorum run --detach``);
    - ``supports_plan_mode``: plan mode runs on it.
    """

    in_process: ClassVar[bool]
    detachable: ClassVar[bool]
    supports_plan_mode: ClassVar[bool]

    async def run(self, order: RunOrder) -> RunResult:
        """Run ``order`` to its end or its stop ``awaiting_approval``; its observers see its events.

        Raises:
            UsageError: the run could not start (no model, an unknown one); nothing was recorded.
            RunFailure: the engine lost the run (a workflow failed without recording its end).
        """
        ...

    async def start(self, order: RunOrder, *, recorded: bool = True) -> str:
        """Start ``order``; its run id once the run is recorded (``recorded``), and the run goes on.

        Locally the run is a task of this engine (``cancel`` ends it); on Temporal, a workflow.

        Raises:
            UsageError: as ``run`` (the run did not start).
        """
        ...

    async def decide(self, order: DecisionOrder) -> RunResult:
        """Record ``order``'s decision on a run recorded on this engine and continue it to its next stop.

        Raises:
            UsageError: nothing pending, a call not pending, claimed by someone else first, or
                (locally) ``RunElsewhere``: nothing was executed.
        """
        ...

    async def cancel(self, run_id: str) -> bool:
        """Cancel ``run_id`` where this engine runs it; False when it runs nothing of it.

        A run in this process is cancelled by cancelling the task awaiting it (the driver's).
        """
        ...


class LocalEngine:
    """The local engine: runs in this process, through the run service of ``runtime``."""

    in_process: ClassVar[bool] = True
    detachable: ClassVar[bool] = False
    supports_plan_mode: ClassVar[bool] = True

    def __init__(self, runtime: Runtime) -> None:
        from quorum.composition.service import RunService

        self.service = RunService(runtime)
        self._tasks: dict[str, asyncio.Task[Any]] = {}  # the runs ``start`` left going on

    async def run(self, order: RunOrder) -> RunResult:
        return await self.service.run(order)

    async def start(self, order: RunOrder, *, recorded: bool = True) -> str:
        """Run ``order`` as a task of this engine; its run id once its first event is out (recorded then)."""
        run_id = order.run_id or uuid.uuid4().hex[:16]
        first = _FirstEvent()
        task = asyncio.create_task(
            self.run(replace(order, run_id=run_id, observers=(*order.observers, first))), name=f"run {run_id}"
        )
        self._tasks[run_id] = task
        task.add_done_callback(lambda done: self._tasks.pop(run_id, None) if self._tasks.get(run_id) is done else None)
        waiter = asyncio.create_task(first.seen.wait())
        await asyncio.wait({task, waiter}, return_when=asyncio.FIRST_COMPLETED)
        waiter.cancel()
        if task.done() and not first.seen.is_set():
            error = None if task.cancelled() else task.exception()
            if error is not None:
                raise error  # it did not start: nothing was recorded
        return run_id

    async def decide(self, order: DecisionOrder) -> RunResult:
        return await self.service.decide(order)

    async def cancel(self, run_id: str) -> bool:
        """Cancel a run ``start`` left going on (it records its end ``cancelled``); False when there is none.

        A run awaited by a driver (``run``, ``decide``) is cancelled through the driver's own task.
        """
        task = self._tasks.get(run_id)
        if task is None or task.done():
            return False
        task.cancel()
        return True


class _FirstEvent:
    """An observer noting the run's first event (the run is recorded from then on)."""

    def __init__(self) -> None:
        self.seen = asyncio.Event()

    def on_event(self, event: RunEvent) -> None:
        self.seen.set()


def engine_class(settings: Settings) -> type[LocalEngine] | type[TemporalEngine]:
    """The engine ``settings`` choose (``[engine] kind``), for its capabilities before a ``Runtime`` exists.

    Raises:
        ConfigurationError: ``temporal`` without the ``temporal`` extra.
    """
    if engine_kind(settings) == "temporal":
        from quorum.composition.temporal_engine import TemporalEngine

        temporal_settings(settings)  # a missing extra is said now, before any run
        return TemporalEngine
    return LocalEngine


def engine_for(runtime: Runtime) -> LocalEngine | TemporalEngine:
    """The engine new runs of ``runtime`` execute on, as ``[engine] kind`` says.

    Raises:
        ConfigurationError: ``temporal`` without the ``temporal`` extra, or with hooks configured
            (a workflow does not run them yet: refused rather than run without them; decision 250).
    """
    engine = engine_class(runtime.container.settings())
    if engine is not LocalEngine and runtime.container.hooks() is not None:
        from quorum.domain.errors import ConfigurationError

        raise ConfigurationError(
            "hooks do not run on the Temporal engine yet: remove the [[hooks.*]] tables or use engine.kind = 'local'",
            key="engine.kind",
        )
    return engine(runtime)


async def engine_of_run(runtime: Runtime, run_id: str) -> LocalEngine | TemporalEngine:
    """The engine that continues the recorded run ``run_id``: the one it was recorded on.

    A run recorded on Temporal is continued by its workflow while that runs (the calls run
    where it was started); once its workflow ended (or for an unknown run), in this process.

    Raises:
        ConfigurationError: a run on Temporal without the ``temporal`` extra.
    """
    store = runtime.container.run_store()
    run = store.get_run(run_id) if store is not None else None
    if run is not None and run.engine == "temporal":
        from quorum.composition.temporal_engine import TemporalEngine

        engine = TemporalEngine(runtime)
        if await engine.running(run_id):
            return engine
    return LocalEngine(runtime)
