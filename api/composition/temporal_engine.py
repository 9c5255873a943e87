"""``TemporalEngine``: runs on Temporal (``[engine] kind = "temporal"``), for every driver.

The one wrapper of the Temporal client the drivers share: ``quorum run`` starts and follows a run
here, ``quorum approve``/``reject`` and ``quorum serve`` signal people's decisions to a run's
workflow, the server starts runs and cancels them. A run's workflow executes on the workers, in
the workspace it was started with, and records into the shared run log (decisions 110 and 111).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from quorum.composition.orders import RunOrder
from quorum.composition.runs import prepare

if TYPE_CHECKING:
    from quorum.application.execution import RunResult
    from quorum.application.ports.approvals import CallDecision
    from quorum.composition.runtime import Runtime

RECORDED_WAIT = 60.0
"""Seconds ``start_recorded`` waits for a worker to record the run (its stream and page exist from then on)."""


class TemporalEngine:
    """The Temporal side of one composition (``runtime``): one client, connected on first use.

    Raises (every method): ConfigurationError when the ``temporal`` extra is missing.
    """

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._client: Any = None

    def _settings(self) -> Any:
        """``[engine]``, after checking that the Temporal SDK is installed."""
        from quorum.infrastructure.engines.settings import EngineSettings, require_temporal

        require_temporal()
        return self._runtime.container.settings().section(EngineSettings)

    async def client(self) -> Any:
        """The Temporal client (connected once)."""
        if self._client is None:
            from quorum.infrastructure.engines.temporal.client import connect

            self._client = await connect(self._settings())
        return self._client

    async def run(self, order: RunOrder) -> RunResult:
        """Start ``order`` (``[review] hil_mode``) and follow its events in the run log to its stop.

        Raises:
            UsageError: as ``start``.
            RunFailure: the workflow ended without recording the run's end.
        """
        from quorum.composition.observers import FanOut
        from quorum.composition.stores import as_approvals
        from quorum.domain.errors import RunFailure
        from quorum.infrastructure.engines.temporal.client import follow, result_of
        from quorum.infrastructure.review.settings import ReviewSettings

        container = self._runtime.container
        store = as_approvals(container.run_store())  # the workers record there: the run is followed there
        run_id, handle = await self.start(order, hil_mode=container.settings().section(ReviewSettings).hil_mode)
        ended = asyncio.ensure_future(handle.result())
        try:
            finished, _ = await follow(store, run_id, FanOut(order.observers), ended=ended)
        finally:
            ended.cancel()
        if finished is None:
            error = ended.exception() if ended.done() and not ended.cancelled() else None
            raise RunFailure(f"the run's workflow failed: {getattr(error, 'cause', None) or error}")
        return result_of(run_id, finished)

    async def start(self, order: RunOrder, *, hil_mode: str) -> tuple[str, Any]:
        """Start ``order`` as a workflow (the workers add the tool sources' notes); its run id and handle.

        The run id is the order's, else a new one.

        Raises:
            UsageError: no model, an unknown one, or plan mode (refused on Temporal).
        """
        from dataclasses import replace

        from quorum.composition.temporal_spec import run_spec
        from quorum.infrastructure.engines.temporal.client import start_run

        prepared = await prepare(self._runtime, replace(order, tool_notes=False))
        engine = self._settings()
        spec = run_spec(prepared, self._runtime.container.settings(), engine, hil_mode=hil_mode)
        handle = await start_run(await self.client(), spec, engine.task_queue)
        return spec.run_id, handle

    async def start_recorded(self, order: RunOrder, *, hil_mode: str) -> str:
        """``start``, returning once a worker recorded the run (or after ``RECORDED_WAIT``)."""
        run_id, _ = await self.start(order, hil_mode=hil_mode)
        store = self._runtime.container.run_store()
        deadline = time.monotonic() + RECORDED_WAIT
        while store is not None and store.get_run(run_id) is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # the worker records the run: there is no event to wait on here
        return run_id

    async def signal(self, run_id: str, decisions: Sequence[CallDecision], *, model_id: str | None = None) -> bool:
        """Claim ``decisions`` in the run log and signal them to the run's workflow.

        Returns False when no workflow of the run is running (the caller continues the run itself).

        Raises:
            UsageError: a call was decided already (by another server or a terminal): nothing signalled.
        """
        from quorum.composition.stores import as_approvals
        from quorum.infrastructure.engines.temporal.client import claim_and_signal, running

        client = await self.client()
        if not await running(client, run_id):
            return False
        approvals = as_approvals(self._runtime.container.run_store())
        await claim_and_signal(client, approvals, run_id, list(decisions), model_id=model_id)
        return True

    async def cancel(self, run_id: str) -> bool:
        """Ask the run's workflow to cancel (it records the end); False when its workflow no longer runs."""
        from quorum.infrastructure.engines.temporal.client import cancel_run

        return await cancel_run(await self.client(), run_id)
