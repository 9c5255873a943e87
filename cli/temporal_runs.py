"""``quorum run --engine temporal``: start the run as a workflow, then follow it as the local engine shows it.

The client resolves what is the user's (task, model, workspace, limits, ``hil_mode``) into a
``RunSpec``, starts the workflow (workflow id = run id), and renders the run log's events as they
are recorded. ``--detach`` prints the run id and exits. When the run stops ``awaiting_approval``
and a person is at this terminal (``hil_mode = "interactive"``), it asks here and signals the
decisions; otherwise it exits 4 and ``quorum approve`` decides later, from anywhere.
"""

from __future__ import annotations

import asyncio
import sys
from typing import Any

import click


async def execute_temporal(
    runtime: Any,
    order: Any,
    *,
    options: Any,
    renderer: Any,
    detach: bool,
) -> int:
    """Start ``order`` (a ``RunOrder``) on Temporal; follow it unless ``detach``. Returns the exit code."""
    from quorum.cli.run_setup import exit_code
    from quorum.composition.engines import temporal_settings
    from quorum.composition.temporal_engine import TemporalEngine
    from quorum.domain.errors import UsageError
    from quorum.infrastructure.review.settings import ReviewSettings

    container = runtime.container
    settings = container.settings()
    temporal_settings(settings)  # the extra is installed
    store = container.run_store()
    if store is None:
        raise UsageError("the Temporal engine records runs in the run log, which is disabled for this run")
    if order.history and order.parent_run_id is None:
        raise UsageError("a run on Temporal continues recorded runs only (--continue/--resume)")
    hil_mode = "auto_approve" if options.yes else settings.section(ReviewSettings).hil_mode
    engine = TemporalEngine(runtime)
    run_id, handle = await engine.start(order, hil_mode=hil_mode)
    if detach:
        click.echo(run_id)
        return 0
    ask = hil_mode == "interactive" and options.interactive and not options.json
    result = await follow_run(await engine.client(), store, run_id, renderer, handle=handle, ask=ask)
    renderer.close()
    return exit_code(result, as_json=options.json)


async def follow_run(
    client: Any, store: Any, run_id: str, renderer: Any, *, handle: Any, ask: bool, after_seq: int = -1
) -> Any:
    """Render the run's events until it ends, or stops ``awaiting_approval`` with nobody to ask here."""
    from quorum.composition.stores import as_approvals
    from quorum.domain.errors import RunFailure, UsageError
    from quorum.infrastructure.engines.temporal.client import claim_and_signal, follow, result_of

    ended = asyncio.ensure_future(handle.result())
    try:
        seq = after_seq
        while True:
            finished, seq = await follow(store, run_id, renderer, after_seq=seq, ended=ended)
            if finished is None:
                try:
                    return ended.result()
                except Exception as error:
                    raise RunFailure(f"the run's workflow failed: {getattr(error, 'cause', None) or error}") from None
            result = result_of(run_id, finished)
            if result.stop_reason != "awaiting_approval" or not ask:
                return result
            decisions = _ask_here(store, run_id)
            if not decisions:
                return result
            try:
                await claim_and_signal(client, as_approvals(store), run_id, decisions)
            except UsageError as error:  # someone decided first (a server, another terminal): theirs stands
                click.echo(f"quorum: {error}", err=True)
    finally:
        ended.cancel()


def _ask_here(store: Any, run_id: str) -> list[Any]:
    """Ask on this terminal about each pending call of the run (simplified: y/N, a reason for no)."""
    import os

    from quorum.application.ports.approvals import CallDecision

    by = os.environ.get("USER") or "unknown"
    decisions = []
    for pending in store.pending(run_id):
        request = pending.request
        click.echo(f"\n{request.name} {request.arguments} ({request.risk} risk): {request.reason}", err=True)
        approved = click.confirm("Approve this call?", default=False, err=True)
        reason = "" if approved else click.prompt("Why not (the model sees it)", default="rejected", err=True)
        decisions.append(CallDecision(call_id=request.call_id, approved=approved, by=by, reason=reason))
    print("", file=sys.stderr, flush=True)
    return decisions


def decide_on_temporal(request: Any, options: Any, display: Any) -> int | None:
    """Send a person's decision to the run's workflow when the run lives on Temporal.

    Where a run lives is recorded with it (``runs.engine``), so ``approve``/``reject`` need no
    ``--engine``. Returns None when the run is not on Temporal, or its workflow is no longer
    running there (the caller continues the run in this process; a decision is claimed once
    either way), else the exit code. The decisions are claimed in the run log here (exit 2 when a
    call is no longer pending: someone decided first), then signalled to the workflow.
    """
    from quorum.cli.compose import compose

    container = compose(options)
    store = container.run_store()
    run = store.get_run(request.run_id) if store is not None else None
    if run is None or run.engine != "temporal":
        return None
    return asyncio.run(_decide(container, request, options, display))


async def _decide(container: Any, request: Any, options: Any, display: Any) -> int | None:
    from quorum.application.ports.approvals import CallDecision
    from quorum.cli.run_setup import exit_code, renderer_for
    from quorum.composition.runtime import Runtime
    from quorum.composition.stores import as_approvals
    from quorum.composition.temporal_engine import TemporalEngine
    from quorum.domain.errors import UsageError
    from quorum.infrastructure.engines.temporal.client import running

    engine = TemporalEngine(Runtime(container))
    client = await engine.client()
    if not await running(client, request.run_id):
        return None
    store = as_approvals(container.run_store())
    pending = [p.request.call_id for p in store.pending(request.run_id)]
    if not pending:
        raise UsageError(f"run {request.run_id} has no calls waiting for approval")
    chosen = list(dict.fromkeys(request.call_ids)) or pending
    unknown = [c for c in chosen if c not in pending]
    if unknown:
        raise UsageError(f"run {request.run_id}: {', '.join(unknown)} not pending (pending: {', '.join(pending)})")
    recorded = store.load_events(request.run_id)
    after = recorded[-1].seq if recorded else -1
    decisions = [
        CallDecision(call_id=c, approved=request.approved, by=request.by, reason=request.reason) for c in chosen
    ]
    model_id = None
    if request.model_id:
        from quorum.composition.model_choice import choose_model

        model_id = container.gateway().resolve(choose_model(request.model_id, container.env()))
    if not await engine.signal(request.run_id, decisions, model_id=model_id):  # claimed once, whoever races
        return None  # its workflow ended meanwhile: the caller continues the run here
    renderer = renderer_for(options.json, display)
    handle = client.get_workflow_handle(request.run_id)
    result = await follow_run(client, store, request.run_id, renderer, handle=handle, ask=False, after_seq=after)
    renderer.close()
    return exit_code(result, as_json=options.json)
