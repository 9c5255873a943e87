"""Where ``quorum batch`` runs its tasks: the configured engine, one composition per workspace.

Each workspace gets one composition, open as one ``Runtime`` (the configuration, the plugins,
the gateway, the tools, the run store are shared by the runs in it; on the local engine the
system prompt with the tool sources' notes is computed once), and the engine the composition
chooses (``engine_for``: the run service in this process, or a workflow per task on Temporal,
whose id is the run id). Every task is a ``RunOrder``; each run has its own reviewer, recorder
and observers, and runs never see each other's state (decision 060).
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from quorum.cli.batch.tasks import BatchTask, TaskOutcome
from quorum.composition.engines import RunEngine, engine_for
from quorum.composition.options import AppOptions

if TYPE_CHECKING:
    from quorum.composition.container import Container
    from quorum.composition.runtime import Runtime


class BatchEngines:
    """Runs tasks on the configured engine; ``aclose`` closes every client and server it opened.

    Args:
        options: the command's options (``overrides`` included); a task's ``workspace`` is added
            to them for that task's composition.
        default: the composition already built from ``options``, for tasks without a workspace.
    """

    def __init__(self, options: AppOptions, default: Container | None = None) -> None:
        self._options = options
        self._default = default
        self._runtimes: dict[Path | None, Runtime] = {}
        self._engines: dict[Path | None, RunEngine] = {}
        self._ready: dict[Path | None, asyncio.Task[None]] = {}

    def runtime(self, workspace: Path | None) -> Runtime:
        """The open composition for tasks in ``workspace`` (None: the configured one), built once."""
        from quorum.cli.compose import compose
        from quorum.composition.runtime import Runtime

        if workspace not in self._runtimes:
            container = self._default if workspace is None else None
            if container is None:
                overrides = dict(self._options.overrides)
                if workspace is not None:
                    overrides["tools"] = {**overrides.get("tools", {}), "workspace": str(workspace)}
                container = compose(replace(self._options, overrides=overrides))
            self._runtimes[workspace] = Runtime(container, share_prompt=True)
        return self._runtimes[workspace]

    def engine(self, workspace: Path | None) -> RunEngine:
        """The engine of tasks in ``workspace`` (its composition's), made once.

        Raises:
            ConfigurationError: the Temporal engine without the ``temporal`` extra.
        """
        if workspace not in self._engines:
            self._engines[workspace] = engine_for(self.runtime(workspace))
        return self._engines[workspace]

    async def _prepare(self, runtime: Runtime) -> None:
        """Once per local composition: the sandbox requirement and the system prompt with the tools' notes."""
        await runtime.require_sandbox(low_risk_only=False)
        await runtime.system_prompt()

    async def run(self, task: BatchTask, run_id: str) -> TaskOutcome:
        from quorum.composition.orders import RunOrder
        from quorum.domain.errors import RunFailure

        engine = self.engine(task.workspace)
        if engine.in_process and task.workspace not in self._ready:
            # the first task of a workspace prepares it for the others
            self._ready[task.workspace] = asyncio.ensure_future(self._prepare(self.runtime(task.workspace)))
        if task.workspace in self._ready:
            await asyncio.shield(self._ready[task.workspace])
        try:
            result = await engine.run(RunOrder(task.task, model=task.model, run_id=run_id))
        except RunFailure as error:  # a workflow that ended without recording the run's end
            return TaskOutcome(task=task, run_id=run_id, status="error", detail=str(error))
        return TaskOutcome(
            task=task,
            run_id=result.run_id,
            status=result.stop_reason,
            output=result.output,
            detail=result.detail,
            turns=result.turns,
        )

    async def aclose(self) -> None:
        for ready in self._ready.values():
            if not ready.done():
                ready.cancel()
        await asyncio.gather(*self._ready.values(), return_exceptions=True)
        for runtime in self._runtimes.values():
            await runtime.aclose()
