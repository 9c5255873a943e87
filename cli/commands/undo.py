"""``quorum undo [RUN_ID] [--to CALL_ID] [--dry-run] [--yes] [--force]``: put back what a run changed.

Shows what it will do (created → removed, modified → restored, deleted → recreated, a diff for
text files and the modes), asks, then applies. Files changed since the run: exit 1, nothing changed
(``--force`` restores them anyway). The undo is a run of its own: ``quorum undo`` again redoes.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import TYPE_CHECKING, Any

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions

if TYPE_CHECKING:
    from quorum.application.use_cases.undo_run import UndoPlan, UndoStep

_DONE = {"remove": "removed", "restore": "restored", "recreate": "recreated"}
_WHY = {"remove": "created by the run", "restore": "modified by the run", "recreate": "deleted by the run"}


@click.command()
@click.argument("run_id", required=False)
@click.option("--to", "to_call", metavar="CALL_ID", help="Restore the state before this call of the run only.")
@click.option("--dry-run", is_flag=True, help="Show what would be done; change nothing.")
@click.option("--yes", "-y", is_flag=True, help="Do not ask before applying.")
@click.option("--force", is_flag=True, help="Restore files changed since the run too (their changes are lost).")
@config_option
def undo(
    run_id: str | None, to_call: str | None, dry_run: bool, yes: bool, force: bool, config_path: Path | None
) -> None:
    """Undo what a run changed in this workspace (default: the last run that changed anything here).

    Every file the run created is removed, every file it modified is restored and every file it
    deleted is recreated, byte for byte with its mode, as before the run (or before call
    CALL_ID with --to). See docs/undo.md for what it cannot undo.
    """
    with handled():
        asyncio.run(_undo(run_id, to_call, dry_run=dry_run, yes=yes, force=force, config_path=config_path))


async def _undo(
    run_id: str | None, to_call: str | None, *, dry_run: bool, yes: bool, force: bool, config_path: Path | None
) -> None:
    from quorum.application.use_cases.undo_run import UndoRequest
    from quorum.cli.compose import compose
    from quorum.composition.checkpoints import build_undo
    from quorum.domain.errors import UndoConflict

    container = compose(AppOptions(config_path=config_path))
    use_case = build_undo(container)
    plan = await use_case.plan(UndoRequest(run_id=_resolved(container, run_id), to_call=to_call))
    _show(plan)
    if plan.conflicts and not force:
        raise UndoConflict(plan.run_id, plan.conflicts)
    if dry_run:
        click.echo("dry run: nothing was changed")
        return
    if not plan.steps:
        click.echo("nothing to undo: the files are as they were before the run")
        return
    if not yes and not click.confirm("Apply this undo?", default=False):
        click.echo("nothing was changed")
        raise SystemExit(1)
    result = await use_case.apply(plan, force=force)
    changed = sum(1 for step in result.plan.steps if step.restorable)
    click.echo(
        f"undone: {changed} path{'s' * (changed != 1)} of run {result.run_id} "
        f"(recorded as run {result.undo_run_id}: `quorum undo {result.undo_run_id}` redoes)"
    )


def _resolved(container: Any, run_id: str | None) -> str | None:
    """``run_id`` as the run log names it (a prefix, ``last``), when the run log knows it; else as given."""
    if run_id is None:
        return None
    from quorum.cli.run_log import resolve_run_id
    from quorum.domain.errors import UsageError

    store = container.run_store()
    if store is None:
        return run_id
    try:
        return resolve_run_id(store, run_id)
    except UsageError:
        return run_id


def _show(plan: UndoPlan) -> None:
    from quorum.infrastructure.terminal_text import printable

    target = f" to the state before call {plan.to_call}" if plan.to_call else ""
    click.echo(f"undo of run {plan.run_id}{target}:")
    for step in plan.steps:
        click.echo(printable(_line(step)))
        if step.diff:
            for line in step.diff.splitlines():
                click.echo(printable(f"      {line}"))
    for path in plan.conflicts:
        click.echo(printable(f"  CHANGED SINCE THE RUN: {path}"), err=True)


def _line(step: UndoStep) -> str:
    if not step.restorable:
        return f"  cannot restore {step.path}: it was over [checkpoints] max_file_mib before the run"
    slash = "/" if step.kind == "dir" else ""
    if step.kind == "link":
        return f"  {_DONE[step.action]:<9} {step.path} (symbolic link, {_WHY[step.action]})"
    modes = f"mode {_mode(step.mode_now)} → {_mode(step.mode_then)}"
    if step.action == "remove":
        modes = f"mode {_mode(step.mode_now)}"
    elif step.action == "recreate":
        modes = f"mode {_mode(step.mode_then)}"
    return f"  {_DONE[step.action]:<9} {step.path}{slash} ({_WHY[step.action]}; {modes})"


def _mode(mode: int | None) -> str:
    return "-" if mode is None else f"{mode:04o}"
