"""``quorum run`` on an engine that runs elsewhere (Temporal): start the run, follow it as a local run shows.

The engine (``engine_for``) resolves what is the user's (task, model, workspace, limits,
``hil_mode``) into a workflow and starts it (workflow id = run id); its events are rendered from
the run log as they are recorded. ``--detach`` prints the run id and exits. When the run stops
``awaiting_approval`` and a person is at this terminal (``hil_mode = "interactive"``), it asks
here and signals the decisions; otherwise it exits 4 and ``quorum approve`` decides later, from
anywhere.
"""

from __future__ import annotations

import os
import sys
from dataclasses import replace
from typing import Any

import click


async def execute_elsewhere(runtime: Any, engine: Any, order: Any, *, options: Any, renderer: Any, detach: bool) -> int:
    """Start ``order`` (a ``RunOrder``) on ``engine``; follow it unless ``detach``. Returns the exit code."""
    from quorum.cli.run_setup import exit_code
    from quorum.infrastructure.review.settings import ReviewSettings

    hil_mode = "auto_approve" if options.yes else runtime.container.settings().section(ReviewSettings).hil_mode
    run_id = await engine.start(replace(order, hil_mode=hil_mode), recorded=False)
    if detach:
        click.echo(run_id)
        return 0
    ask = hil_mode == "interactive" and options.interactive and not options.json
    result = await _follow(engine, runtime.container.run_store(), run_id, renderer, ask=ask)
    renderer.close()
    return exit_code(result, as_json=options.json)


async def _follow(engine: Any, store: Any, run_id: str, renderer: Any, *, ask: bool) -> Any:
    """Render the run's events until it ends, or stops ``awaiting_approval`` with nobody to ask here."""
    from quorum.domain.errors import UsageError

    result = await engine.follow(run_id, renderer)
    while result.stop_reason == "awaiting_approval" and ask:
        recorded = store.load_events(run_id)
        after = recorded[-1].seq if recorded else -1
        decisions = _ask_here(store, run_id)
        if not decisions:
            return result
        try:
            await engine.signal(run_id, decisions)
        except UsageError as error:  # someone decided first (a server, another terminal): theirs stands
            click.echo(f"quorum: {error}", err=True)
        result = await engine.follow(run_id, renderer, after_seq=after)
    return result


def _ask_here(store: Any, run_id: str) -> list[Any]:
    """Ask on this terminal about each pending call of the run (simplified: y/N, a reason for no)."""
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
