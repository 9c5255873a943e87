"""Where ``quorum batch`` runs its tasks: the local engine (this process), and the Temporal seam.

Local: one composition per workspace, open as one ``Runtime`` (the configuration, the plugins, the
gateway, the tools, the run store are shared by the runs in it; the system prompt with the tool
sources' notes is computed once), and for every task a ``RunOrder`` to its run service, which gives
the run its own agent, reviewer, recorder and observers: runs never see each other's state
(decision 060).

Temporal: ``temporal_engine`` is the one function to provide — an engine whose ``run`` starts the
task as a workflow whose id is the run id, waits for its end, and returns the outcome.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quorum.cli.batch.tasks import BatchTask, TaskEngine, TaskOutcome
from quorum.composition.options import AppOptions

if TYPE_CHECKING:
    from quorum.composition.container import Container
    from quorum.composition.runtime import Runtime


class LocalEngine:
    """Runs tasks in this process; ``aclose`` closes every client and server it opened.

    Args:
        options: the command's options (``overrides`` included); a task's ``workspace`` is added
            to them for that task's composition.
        default: the composition already built from ``options``, for tasks without a workspace.
    """

    def __init__(self, options: AppOptions, default: Container | None = None) -> None:
        self._options = options
        self._default = default
        self._runtimes: dict[Path | None, Runtime] = {}
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

    async def _prepare(self, runtime: Runtime) -> None:
        """Once per composition: the sandbox requirement and the system prompt with the tools' notes."""
        await runtime.require_sandbox(low_risk_only=False)
        await runtime.system_prompt()

    async def run(self, task: BatchTask, run_id: str) -> TaskOutcome:
        from quorum.composition.orders import RunOrder
        from quorum.composition.service import RunService

        runtime = self.runtime(task.workspace)
        if task.workspace not in self._ready:  # the first task of a workspace prepares it for the others
            self._ready[task.workspace] = asyncio.ensure_future(self._prepare(runtime))
        await asyncio.shield(self._ready[task.workspace])
        result = await RunService(runtime).run(RunOrder(task.task, model=task.model, run_id=run_id))
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


def temporal_engine(container: Any) -> TaskEngine:
    """The Temporal engine for ``quorum batch --engine temporal``: one workflow per task.

    Raises:
        ConfigurationError: the ``temporal`` extra is missing.
    """
    from quorum.cli.batch.temporal import TemporalTaskEngine

    return TemporalTaskEngine(container)
