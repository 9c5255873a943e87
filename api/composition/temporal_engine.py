"""``TemporalEngine``: runs on Temporal (``[engine] kind = "temporal"``), for every driver.

The one wrapper of the Temporal client the drivers share, reached through ``engine_for`` and
``engine_of_run``: ``quorum run`` starts and follows a run here, ``quorum approve``/``reject``
and ``quorum serve`` send people's decisions to a run's workflow, the server starts runs and
cancels them. A run's workflow executes on the workers, in the workspace it was started with,
and records into the shared run log (decisions 110 and 111).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING, Any, ClassVar

from quorum.composition.orders import DecisionOrder, RunOrder
from quorum.composition.runs import prepare

if TYPE_CHECKING:
    from quorum.application.execution import RunResult
    from quorum.application.ports.approvals import CallDecision
    from quorum.application.ports.observer import RunObserver
    from quorum.composition.runtime import Runtime

RECORDED_WAIT = 60.0
"""Seconds ``start`` waits for a worker to record the run (its stream and page exist from then on)."""


class TemporalEngine:
    """The Temporal side of one composition (``runtime``): one client, connected on first use.

    Raises (every method): ConfigurationError when the ``temporal`` extra is missing.
    """

    in_process: ClassVar[bool] = False
    detachable: ClassVar[bool] = True
    supports_plan_mode: ClassVar[bool] = False

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._client: Any = None

    def _settings(self) -> Any:
        """``[engine]``, after checking that the Temporal SDK is installed."""
        from quorum.infrastructure.engines.settings import EngineSettings, require_temporal

        require_temporal()
        return self._runtime.container.settings().section(EngineSettings)

    def _store(self) -> Any:
        """The run log the workers record into (a ``RunStore`` keeping pending approvals)."""
        from quorum.composition.stores import as_approvals

        return as_approvals(self._runtime.container.run_store())

    async def client(self) -> Any:
        """The Temporal client (connected once)."""
        if self._client is None:
            from quorum.infrastructure.engines.temporal.client import connect

            self._client = await connect(self._settings())
        return self._client

    async def running(self, run_id: str) -> bool:
        """Whether a workflow of ``run_id`` runs on the service."""
        from quorum.infrastructure.engines.temporal.client import running

        return await running(await self.client(), run_id)

    async def run(self, order: RunOrder) -> RunResult:
        """Start ``order`` and follow its events in the run log to its stop.

        Raises:
            UsageError: as ``start``.
            RunFailure: the workflow ended without recording the run's end.
        """
        from quorum.composition.observers import FanOut

        run_id = await self.start(order, recorded=False)
        return await self.follow(run_id, FanOut(order.observers), strict=True)

    async def start(self, order: RunOrder, *, recorded: bool = True) -> str:
        """Start ``order`` as a workflow (the workers add the tool sources' notes); its run id.

        The run id is the order's, else a new one; its approval mode the order's, else
        ``[review] hil_mode``. ``recorded``: return once a worker recorded the run (or after
        ``RECORDED_WAIT``), else as soon as the workflow started.

        Raises:
            UsageError: no run log, a conversation not recorded (history without a parent run),
                no model, an unknown one, plan mode or an output schema (refused on Temporal).
        """
        from quorum.composition.temporal_spec import refuse_plan_mode, run_spec
        from quorum.domain.errors import UsageError
        from quorum.infrastructure.engines.temporal.client import start_run
        from quorum.infrastructure.review.settings import ReviewSettings

        self._settings()  # the extra is installed
        if self._runtime.container.run_store() is None:
            raise UsageError("the Temporal engine records runs in the run log, which is disabled for this run")
        if order.history and order.parent_run_id is None:
            raise UsageError("a run on Temporal continues recorded runs only (--continue/--resume)")
        if order.plan:
            refuse_plan_mode("always")  # [agent] plan = "always": refused by run_spec
        if order.output_schema is not None:
            raise UsageError("an output schema (--output-schema) is checked on the local engine only, not on Temporal")
        settings = self._runtime.container.settings()
        hil_mode = order.hil_mode or settings.section(ReviewSettings).hil_mode
        prepared = await prepare(self._runtime, replace(order, tool_notes=False))
        engine = self._settings()
        spec = run_spec(prepared, settings, engine, hil_mode=hil_mode)
        await start_run(await self.client(), spec, engine.task_queue)
        if recorded:
            await self._recorded(spec.run_id)
        return spec.run_id

    async def _recorded(self, run_id: str) -> None:
        """Until a worker recorded ``run_id`` (or ``RECORDED_WAIT`` seconds passed)."""
        store = self._runtime.container.run_store()
        deadline = time.monotonic() + RECORDED_WAIT
        while store is not None and store.get_run(run_id) is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # the worker records the run: there is no event to wait on here

    async def follow(self, run_id: str, observer: RunObserver, *, after_seq: int = -1, strict: bool = False) -> Any:
        """Show ``observer`` the run's recorded events after ``after_seq`` until it ends or stops to wait.

        Returns the ``RunResult`` the recorded ``run_finished`` describes; when the workflow ended
        without recording one, its own result (``strict``: ``RunFailure`` instead).

        Raises:
            RunFailure: the workflow failed without recording the run's end.
        """
        from quorum.domain.errors import RunFailure
        from quorum.infrastructure.engines.temporal.client import follow, result_of

        handle = (await self.client()).get_workflow_handle(run_id)
        ended = asyncio.ensure_future(handle.result())
        try:
            finished, _ = await follow(self._store(), run_id, observer, after_seq=after_seq, ended=ended)
            if finished is not None:
                return result_of(run_id, finished)
            if strict:
                error = ended.exception() if ended.done() and not ended.cancelled() else None
                raise RunFailure(f"the run's workflow failed: {getattr(error, 'cause', None) or error}")
            try:
                return ended.result()
            except Exception as error:
                raise RunFailure(f"the run's workflow failed: {getattr(error, 'cause', None) or error}") from None
        finally:
            ended.cancel()

    async def signal(self, run_id: str, decisions: Sequence[CallDecision], *, model_id: str | None = None) -> bool:
        """Claim ``decisions`` in the run log and signal them to the run's workflow.

        Returns False when no workflow of the run is running (the caller continues the run itself).

        Raises:
            UsageError: a call was decided already (by another server or a terminal): nothing signalled.
        """
        from quorum.infrastructure.engines.temporal.client import claim_and_signal, running

        client = await self.client()
        if not await running(client, run_id):
            return False
        await claim_and_signal(client, self._store(), run_id, list(decisions), model_id=model_id)
        return True

    async def decide(self, order: DecisionOrder) -> RunResult:
        """Claim ``order``'s decision, signal it to the run's workflow and follow the run to its next stop.

        When the workflow ended meanwhile, the run is continued in this process (``LocalEngine``).

        Raises:
            UsageError: nothing pending, or a call not pending (someone decided first): nothing signalled.
        """
        from quorum.composition.observers import FanOut
        from quorum.domain.errors import UsageError

        store = self._store()
        pending = [p.request.call_id for p in store.pending(order.run_id)]
        if not pending:
            raise UsageError(f"run {order.run_id} has no calls waiting for approval")
        chosen = list(dict.fromkeys(order.call_ids)) or pending
        unknown = [c for c in chosen if c not in pending]
        if unknown:
            raise UsageError(f"run {order.run_id}: {', '.join(unknown)} not pending (pending: {', '.join(pending)})")
        recorded = store.load_events(order.run_id)
        after = recorded[-1].seq if recorded else -1
        if not await self.signal(order.run_id, self._decisions(order, chosen), model_id=self._model_id(order)):
            from quorum.composition.service import RunService

            # its workflow ended meanwhile: this process continues it, as the local engine would
            return await RunService(self._runtime).decide(order)
        return await self.follow(order.run_id, FanOut(order.observers), after_seq=after)

    async def submit(self, order: DecisionOrder) -> bool:
        """Claim ``order``'s decision and signal it to the run's workflow, which goes on by itself.

        Returns False when its workflow no longer runs (the caller continues the run itself).

        Raises:
            UsageError: a call is not pending, or someone decided it first: nothing signalled.
        """
        from quorum.domain.errors import UsageError

        pending = [p.request.call_id for p in self._store().pending(order.run_id)]
        chosen = list(order.call_ids) or pending
        if not chosen or not set(chosen) <= set(pending):
            raise UsageError(f"run {order.run_id}: {', '.join(order.call_ids) or 'nothing'} is not pending")
        return await self.signal(order.run_id, self._decisions(order, chosen))

    @staticmethod
    def _decisions(order: DecisionOrder, call_ids: Sequence[str]) -> list[CallDecision]:
        from quorum.application.ports.approvals import CallDecision

        return [CallDecision(call_id=c, approved=order.approved, by=order.by, reason=order.reason) for c in call_ids]

    def _model_id(self, order: DecisionOrder) -> str | None:
        """The model the run goes on with (``provider:model``), None: the one it used last."""
        if not order.model:
            return None
        from quorum.composition.model_choice import choose_model

        container = self._runtime.container
        model_id: str = container.gateway().resolve(choose_model(order.model, container.env()))
        return model_id

    async def cancel(self, run_id: str) -> bool:
        """Ask the run's workflow to cancel (it records the end); False when its workflow no longer runs."""
        from quorum.infrastructure.engines.temporal.client import cancel_run

        return await cancel_run(await self.client(), run_id)
