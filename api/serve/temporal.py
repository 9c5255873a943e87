"""Served runs on Temporal (``[engine] kind = "temporal"``): started as workflows, decided by signals.

A run's workflow executes on the workers and records into the shared run log, so any server on
that log follows it (the event stream reads the log) and any server decides its calls. A server
that stops leaves its runs to the engine.
"""

from __future__ import annotations

import asyncio
import time
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quorum.composition.runtime import Runtime

RECORDED_WAIT = 60.0
"""Seconds a start waits for a worker to record the run (its stream and page exist from then on)."""


class TemporalRuns:
    """The Temporal side of a ``RunHub``: one client, connected on first use."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._client: Any = None

    def _engine(self) -> Any:
        from quorum.infrastructure.engines.settings import EngineSettings

        return self._runtime.container.settings().section(EngineSettings)

    def enabled(self) -> bool:
        """Whether new runs go to Temporal."""
        from quorum.composition.engines import engine_kind

        return engine_kind(self._runtime.container.settings()) == "temporal"

    async def client(self) -> Any:
        if self._client is None:
            from quorum.infrastructure.engines.temporal.client import connect

            self._client = await connect(self._engine())
        return self._client

    async def start(self, task: str, *, model: str | None, history: list[Any], parent: str | None) -> str:
        """Start the run's workflow (``hil_mode = "defer"``); returns its id once a worker recorded it."""
        from quorum.composition.runs import prepare_run
        from quorum.composition.temporal_spec import run_spec
        from quorum.infrastructure.engines.temporal.client import start_run

        prepared = await prepare_run(
            self._runtime, task, model=model, history=history, parent_run_id=parent, tool_notes=False
        )
        engine = self._engine()
        spec = run_spec(prepared, self._runtime.container.settings(), engine, hil_mode="defer")
        await start_run(await self.client(), spec, engine.task_queue)
        store = self._runtime.store
        deadline = time.monotonic() + RECORDED_WAIT
        while store is not None and store.get_run(spec.run_id) is None and time.monotonic() < deadline:
            await asyncio.sleep(0.05)  # the worker records the run: there is no event to wait on here
        return spec.run_id

    async def decide(self, run_id: str, decisions: list[Any]) -> bool:
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
        await claim_and_signal(client, as_approvals(self._runtime.store), run_id, decisions)
        return True

    async def cancel(self, run_id: str) -> bool:
        """Ask the run's workflow to cancel (it records the end); False when its workflow no longer runs."""
        from quorum.infrastructure.engines.temporal.client import cancel_run

        return await cancel_run(await self.client(), run_id)
