"""Where ``quorum batch`` runs its tasks: the local engine (this process), and the Temporal seam.

Local: one composition per workspace (the configuration, the plugins, the gateway, the tools, the
run store are shared by the runs in it), and for every task a fresh ``RunAgent`` from the
container's per-run ``Factory`` providers, so each run has its own reviewer, recorder and
observers and runs never see each other's state (decision 060).

Temporal: ``temporal_engine`` is the one function to provide — an engine whose ``run`` starts the
task as a workflow whose id is the run id, waits for its end, and returns the outcome.
"""

from __future__ import annotations

import asyncio
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quorum.cli.batch.tasks import BatchTask, TaskEngine, TaskOutcome
from quorum.cli.options import AppOptions

if TYPE_CHECKING:
    from quorum.cli.container import Container


class LocalEngine:
    """Runs tasks in this process; ``aclose`` closes every client and server it opened.

    Args:
        options: the command's options (``overrides`` included); a task's ``workspace`` is added
            to them for that task's composition.
        default: the composition already built from ``options``, for tasks without a workspace.
    """

    def __init__(self, options: AppOptions, default: Container | None = None) -> None:
        self._options = options
        self._containers: dict[Path | None, Container] = {} if default is None else {None: default}
        self._ready: dict[Path | None, asyncio.Task[str | None]] = {}

    def container(self, workspace: Path | None) -> Container:
        """The composition for tasks in ``workspace`` (None: the configured one), built once."""
        from quorum.cli.container import build_container

        if workspace not in self._containers:
            overrides = dict(self._options.overrides)
            if workspace is not None:
                overrides["tools"] = {**overrides.get("tools", {}), "workspace": str(workspace)}
            self._containers[workspace] = build_container(replace(self._options, overrides=overrides))
        return self._containers[workspace]

    async def _system_prompt(self, workspace: Path | None) -> str | None:
        """Checked and computed once per composition: the sandbox requirement and the tools' notes."""
        from quorum.cli.run_setup import require_sandbox, system_prompt, with_tool_notes

        container = self.container(workspace)
        executor = container.tool_executor()
        await require_sandbox(container, executor, low_risk_only=False)
        return await with_tool_notes(system_prompt(container.settings()), executor)

    async def run(self, task: BatchTask, run_id: str) -> TaskOutcome:
        from quorum.application.execution import RunRequest
        from quorum.cli.model_choice import choose_model

        container = self.container(task.workspace)
        settings = container.settings()
        if task.workspace not in self._ready:  # the first task of a workspace prepares it for the others
            self._ready[task.workspace] = asyncio.ensure_future(self._system_prompt(task.workspace))
        prompt = await asyncio.shield(self._ready[task.workspace])
        model_id = container.gateway().resolve(choose_model(task.model or settings.model, container.env()))
        request = RunRequest(
            task=task.task,
            model_id=model_id,
            system_prompt=prompt,
            params=settings.agent.execution_params(tools="all"),
            run_id=run_id,
        )
        result = await container.run_agent().execute(request)  # a new agent, reviewer and recorder
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
        for container in self._containers.values():
            await container.tool_executor().aclose()
            await container.gateway().aclose()


def temporal_engine(container: Any) -> TaskEngine:
    """The Temporal engine for ``quorum batch --engine temporal``: one workflow per task.

    Raises:
        ConfigurationError: the ``temporal`` extra is missing.
    """
    from quorum.cli.commands.run_temporal import TemporalTaskEngine

    return TemporalTaskEngine(container)
