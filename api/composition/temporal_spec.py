"""The workflow input of a prepared run on the Temporal engine, shared by every driver that starts one."""

from __future__ import annotations

import uuid
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quorum.composition.orders import PreparedRun
    from quorum.infrastructure.config.schema import Settings
    from quorum.infrastructure.engines.settings import EngineSettings
    from quorum.infrastructure.engines.temporal.messages import RunSpec


def refuse_plan_mode(plan: str) -> None:
    """Plan mode does not run on the Temporal engine yet (decision 180): refuse it before anything starts.

    Raises:
        UsageError: ``plan`` (the run's ``[agent] plan``) is ``always``.
    """
    if plan == "always":
        from quorum.domain.errors import UsageError

        raise UsageError("plan mode (--plan, [agent] plan) runs on the local engine only, not on Temporal")


def run_spec(prepared: PreparedRun, settings: Settings, engine: EngineSettings, *, hil_mode: str) -> RunSpec:
    """The ``RunSpec`` of ``prepared`` (its run id, else a new one); workspace, timeouts from ``settings``.

    With ``[telemetry]`` on, ``trace`` is the caller's trace context (a served request's
    ``traceparent``), else a new trace id: the workers' spans of the run share it.

    Raises:
        UsageError: plan mode (``refuse_plan_mode``).
    """
    refuse_plan_mode(prepared.request.params.plan)
    from quorum.composition.paths import workspace_of
    from quorum.infrastructure.engines.temporal.messages import RunSpec
    from quorum.infrastructure.review.settings import ReviewSettings
    from quorum.infrastructure.telemetry.hooks import current_trace
    from quorum.infrastructure.telemetry.settings import TelemetrySettings

    request = prepared.request
    return RunSpec(
        run_id=request.run_id or uuid.uuid4().hex[:16],
        task=request.task,
        model_id=request.model_id,
        system_prompt=request.system_prompt,
        params=request.params,
        workspace=str(workspace_of(settings)),
        hil_mode=hil_mode,
        approval_timeout=settings.section(ReviewSettings).approval_timeout,
        parent_run_id=prepared.parent_run_id,
        heartbeat_timeout=engine.heartbeat_timeout,
        trace=current_trace(mint=settings.section(TelemetrySettings).enabled),  # the workers' spans: one trace
    )
