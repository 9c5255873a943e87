"""The client side of the Temporal engine: connect, start a run, send decisions, follow the run log.

The live output of a run on Temporal is the run log: the workflow records every event through an
activity before it waits on anything, and the client tails the log (``follow``), rendering each
new event with the same renderer as the local engine. The log is the product record either way,
so ``quorum logs show`` and the live output cannot disagree.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import Sequence
from typing import Any

from temporalio.client import Client, WorkflowExecutionStatus, WorkflowHandle
from temporalio.contrib.pydantic import pydantic_data_converter
from temporalio.service import RPCError, RPCStatusCode

from quorum.application.execution import RunResult
from quorum.application.ports.approvals import CallDecision, PendingApprovals
from quorum.application.ports.observer import RunObserver
from quorum.application.ports.run_store import RunStore
from quorum.domain.errors import RunFailure, UsageError
from quorum.domain.events import RunFinished, RunStopReason
from quorum.infrastructure.engines.settings import EngineSettings
from quorum.infrastructure.engines.temporal.messages import DECIDE_SIGNAL, WORKFLOW_NAME, Decisions, RunSpec

POLL_SECONDS = 0.2
"""How often the client reads new events from the run log (live output lags by about this much)."""


async def connect(settings: EngineSettings) -> Client:
    """A client of ``[engine] address``/``namespace`` speaking pydantic.

    Raises:
        RunFailure: the service cannot be reached (naming ``quorum dev-server`` for a local one).
    """
    try:
        return await Client.connect(
            settings.address,
            namespace=settings.namespace,
            tls=settings.tls,
            data_converter=pydantic_data_converter,
        )
    except RuntimeError as error:
        raise RunFailure(
            f"cannot reach Temporal at {settings.address} (namespace {settings.namespace}): {error}; "
            "start one with `quorum dev-server` or set [engine] address"
        ) from None


async def start_run(client: Client, spec: RunSpec, task_queue: str) -> WorkflowHandle[Any, RunResult]:
    """Start the run's workflow (workflow id = run id) on ``task_queue``."""
    return await client.start_workflow(
        WORKFLOW_NAME, spec, id=spec.run_id, task_queue=task_queue, result_type=RunResult
    )


async def running(client: Client, run_id: str) -> bool:
    """Whether a workflow of this run id is running on this service (False when none exists)."""
    try:
        description = await client.get_workflow_handle(run_id).describe()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return False
        raise RunFailure(f"Temporal: {error}") from None
    return description.status == WorkflowExecutionStatus.RUNNING


async def send_decisions(
    client: Client, run_id: str, decisions: Sequence[CallDecision], *, model_id: str | None = None
) -> None:
    """Signal people's decisions to the run's workflow (buffered by Temporal if no worker runs).

    ``model_id`` (resolved) switches the rest of the run to that model, as ``approve --model`` does locally.

    Raises:
        UsageError: no such workflow is running.
    """
    try:
        await client.get_workflow_handle(run_id).signal(
            DECIDE_SIGNAL, Decisions(decisions=tuple(decisions), model_id=model_id)
        )
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            raise UsageError(f"run {run_id} is not running on Temporal") from None
        raise RunFailure(f"Temporal: {error}") from None


async def claim_and_signal(
    client: Client,
    approvals: PendingApprovals,
    run_id: str,
    decisions: Sequence[CallDecision],
    *,
    model_id: str | None = None,
) -> None:
    """Claim people's decisions in the run log, once across every process, then signal them to the workflow.

    Of two people (servers, terminals) deciding the same call at once, one claim wins; the other
    gets ``UsageError`` and nothing is signalled for it. The workflow's own claim of the signalled
    decisions is then a repeat of this one (same decision id) and succeeds.

    Raises:
        UsageError: a call is not pending (already decided, by anyone), or the run is not waiting.
        RunFailure: the claim was recorded but the signal could not be sent (Temporal unreachable).
    """
    decision_id = uuid.uuid4().hex
    claimed = [d.model_copy(update={"decision_id": decision_id}) for d in decisions]
    approvals.claim(run_id, claimed)
    try:
        await send_decisions(client, run_id, claimed, model_id=model_id)
    except UsageError:
        raise RunFailure(f"run {run_id}: the decision was recorded, but its workflow no longer runs") from None


async def cancel_run(client: Client, run_id: str) -> bool:
    """Ask the run's workflow to cancel (it records the run's end ``cancelled``); False when none is running."""
    if not await running(client, run_id):
        return False
    try:
        await client.get_workflow_handle(run_id).cancel()
    except RPCError as error:
        if error.status == RPCStatusCode.NOT_FOUND:
            return False
        raise RunFailure(f"Temporal: {error}") from None
    return True


async def follow(
    store: RunStore,
    run_id: str,
    observer: RunObserver,
    *,
    after_seq: int = -1,
    ended: asyncio.Future[Any] | None = None,
) -> tuple[RunFinished | None, int]:
    """Pass the run's events after ``after_seq`` to ``observer`` until its next ``run_finished``.

    Returns that event (None when ``ended`` completed first: the workflow ended without recording
    one) and the last sequence number seen.
    """
    seq = after_seq
    while True:
        for recorded in store.load_events(run_id):
            if recorded.seq <= seq:
                continue
            seq = recorded.seq
            observer.on_event(recorded.event)
            if isinstance(recorded.event, RunFinished):
                return recorded.event, seq
        if ended is not None and ended.done():
            return None, seq
        await asyncio.sleep(POLL_SECONDS)


def result_of(run_id: str, finished: RunFinished) -> RunResult:
    """The ``RunResult`` a recorded ``run_finished`` describes."""
    return RunResult(
        run_id=run_id,
        stop_reason=RunStopReason(finished.stop_reason),
        turns=finished.turns,
        output=finished.output,
        usage=finished.usage,
        detail=finished.detail,
        cost=finished.cost,
    )
