"""``quorum batch --engine temporal``: each task one workflow, followed in the run log until it ends."""

from __future__ import annotations

import asyncio
from typing import Any

from quorum.cli.batch.tasks import BatchTask, TaskOutcome
from quorum.cli.engine import temporal_settings
from quorum.infrastructure.review.settings import ReviewSettings


class TemporalTaskEngine:
    """``quorum batch --engine temporal``: each task one workflow (id = run id), spread over the workers.

    A task ends for the batch when its run records ``run_finished``: done, failed, or stopped
    ``awaiting_approval`` (its workflow then waits on Temporal for ``quorum approve``, however
    long the batch process lives). The client resolves each task's model; workers compose the
    rest (tools, keys, reviewers) from their own configuration.
    """

    def __init__(self, container: Any) -> None:
        from quorum.composition.runtime import Runtime
        from quorum.composition.temporal_engine import TemporalEngine

        self._container = container
        self._settings = container.settings()
        self._engine = temporal_settings(self._settings)
        self._temporal = TemporalEngine(Runtime(container))  # the one client of the batch
        self._connecting = asyncio.Lock()

    async def _connected(self) -> Any:
        async with self._connecting:  # tasks start at once: one connection for all
            return await self._temporal.client()

    async def run(self, task: BatchTask, run_id: str) -> TaskOutcome:
        from quorum.composition.model_choice import choose_model
        from quorum.composition.paths import workspace_of
        from quorum.composition.runs import system_prompt
        from quorum.composition.temporal_spec import refuse_plan_mode
        from quorum.infrastructure.engines.temporal.client import follow, result_of, start_run
        from quorum.infrastructure.engines.temporal.messages import RunSpec

        settings, container = self._settings, self._container
        refuse_plan_mode(settings.agent.plan)
        workspace = task.workspace or workspace_of(settings)
        model_id = container.gateway().resolve(choose_model(task.model or settings.model, container.env()))
        spec = RunSpec(
            run_id=run_id,
            task=task.task,
            model_id=model_id,
            system_prompt=system_prompt(settings, workspace),
            params=settings.agent.execution_params(tools="all"),
            workspace=str(workspace),
            hil_mode=settings.section(ReviewSettings).hil_mode,
            approval_timeout=settings.section(ReviewSettings).approval_timeout,
            heartbeat_timeout=self._engine.heartbeat_timeout,
        )
        handle = await start_run(await self._connected(), spec, self._engine.task_queue)
        ended = asyncio.ensure_future(handle.result())
        try:
            finished, _ = await follow(container.run_store(), run_id, _Nobody(), ended=ended)
        finally:
            ended.cancel()
        if finished is None:
            error = ended.exception() if ended.done() and not ended.cancelled() else None
            cause = getattr(error, "cause", None) or error
            return TaskOutcome(task=task, run_id=run_id, status="error", detail=f"the run's workflow failed: {cause}")
        result = result_of(run_id, finished)
        return TaskOutcome(
            task=task,
            run_id=run_id,
            status=result.stop_reason,
            output=result.output,
            detail=result.detail,
            turns=result.turns,
        )


class _Nobody:
    """The batch shows outcomes, not each run's events."""

    def on_event(self, event: Any) -> None:
        """Nothing to show."""
