"""``quorum pending [RUN_ID]``: the calls waiting for a person (``hil_mode = "defer"``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions


@click.command()
@click.argument("run_id", required=False)
@config_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per pending call on stdout.")
def pending(run_id: str | None, config_path: Path | None, as_json: bool) -> None:
    """List calls waiting for a person: tool, arguments, risk and the review so far.

    Decide with `quorum approve RUN_ID [CALL_ID…]` or `quorum reject RUN_ID [CALL_ID…] --reason TEXT`.
    """
    with handled():
        from quorum.cli.run_log import approvals_of, resolve_run_id

        store = approvals_of(AppOptions(config_path=config_path))
        wanted = resolve_run_id(store, run_id) if run_id else None
        calls = store.pending(wanted)
        if as_json:
            for call in calls:
                click.echo(json.dumps(_as_json(call), ensure_ascii=False))
            return
        _show(calls, wanted)


def _as_json(call: Any) -> dict[str, Any]:
    request = call.request.model_dump(mode="json")
    request.pop("type", None)
    return {"run_id": call.run_id, "task": call.task, "requested_at": call.requested_at.isoformat(), **request}


def _show(calls: list[Any], run_id: str | None) -> None:
    from quorum.infrastructure.terminal_text import printable

    if not calls:
        click.echo(f"nothing is waiting for approval{f' in run {run_id}' if run_id else ''}")
        return
    current = None
    for call in calls:
        if call.run_id != current:
            current = call.run_id
            task = " ".join(call.task.split())
            click.echo(printable(f"run {call.run_id} · {task[:80]}{'…' if len(task) > 80 else ''}"))
        request = call.request
        arguments = json.dumps(request.arguments, ensure_ascii=False)
        click.echo(printable(f"  {request.call_id}  {request.name} {arguments}  ({request.risk} risk)"))
        click.echo(printable(f"      why: {' '.join(request.reason.split())}"))
        for vote in request.votes:
            click.echo(printable(f"      {vote.reviewer} ({vote.verdict}): {' '.join(vote.reason.split())}"))
    click.echo("decide with: quorum approve RUN_ID [CALL_ID…]  ·  quorum reject RUN_ID [CALL_ID…] --reason TEXT")
