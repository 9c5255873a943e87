"""``quorum logs list|show|search|rm``: browse the run log.

Human output goes to stdout (``show`` renders the events through ``render.record``); ``--json``
prints JSON lines only: ``list`` one run summary per line, ``show`` a ``{"type": "run", ...}``
summary line followed by every event exactly as ``run --json`` emitted it (plus ``at``, when it
was recorded), ``search`` one hit per line.
"""

from __future__ import annotations

import json
from datetime import datetime
from pathlib import Path
from typing import Any

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option, json_option
from quorum.cli.run_log import open_run_store, resolve_run_id
from quorum.composition.options import AppOptions
from quorum.domain import amounts


def _when(moment: datetime | None) -> str:
    return "-" if moment is None else moment.astimezone().strftime("%Y-%m-%d %H:%M:%S")


def _one_line(text: str, width: int | None = None) -> str:
    """``text`` on one line, escaped (``printable``: a task may carry escape sequences), cut at ``width``."""
    from quorum.infrastructure.terminal_text import printable

    flat = printable(" ".join(text.split()))
    return flat if width is None or len(flat) <= width else flat[: width - 1] + "…"


@click.group()
def logs() -> None:
    """Browse recorded runs: every message, tool call, review vote and result."""


def _since(value: str | None) -> datetime | None:
    if value is None:
        return None
    try:
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise click.BadParameter(f"{value!r}: expected a date YYYY-MM-DD or YYYY-MM-DDTHH:MM") from None
    return moment if moment.tzinfo else moment.astimezone()  # a local date, as `logs list` shows them


@logs.command("list")
@click.option("-n", "limit", type=click.IntRange(min=1), default=20, show_default=True, help="How many runs.")
@click.option("--model", "model", help="Only runs whose model id contains this.")
@click.option("--since", "since", metavar="DATE", help="Only runs started on or after DATE (local time).")
@click.option("--grep", "text", metavar="TEXT", help="Only runs whose task, answer or events contain TEXT.")
@json_option
@config_option
def list_runs(
    limit: int, model: str | None, since: str | None, text: str | None, as_json: bool, config_path: Path | None
) -> None:
    """List recent runs, newest first (the run log's path goes to stderr).

    A run whose end was never recorded (killed, crashed, or still going) shows as interrupted.
    """
    moment = _since(since)
    with handled():
        store = open_run_store(config_path)
        runs = store.list_runs(limit, model=model, since=moment, text=text)
    if as_json:
        for run in runs:
            click.echo(run.model_dump_json())
        return
    from quorum.cli.compose import compose
    from quorum.cli.run_log import run_log_location

    click.echo(f"# run log: {run_log_location(compose(AppOptions(config_path=config_path)))}", err=True)
    if not runs:
        filtered = model or since or text
        click.echo("no run matches" if filtered else "no runs recorded yet", err=True)
        return
    click.echo(f"{'RUN':<16}  {'STARTED':<19}  {'STATUS':<11}  TURNS  CALLS  {'MODEL':<24}  TASK")
    for r in runs:
        click.echo(
            f"{r.run_id:<16}  {_when(r.started_at):<19}  {r.status:<11}  {r.turns:>5}  {r.tool_calls:>5}  "
            f"{_one_line(r.model, 24):<24}  {_child_mark(r)}{_one_line(r.task, 60)}"
        )


def _child_mark(run: Any) -> str:
    """``↳ NAME `` before the task of a delegation (a subagent's child run), nothing otherwise."""
    return f"↳ {_one_line(run.subagent, 20)} " if run.subagent else ""


@logs.command("show")
@click.argument("run_id", metavar="RUN_ID|last")
@json_option
@config_option
def show(run_id: str, as_json: bool, config_path: Path | None) -> None:
    """Show one run in full (RUN_ID or any unique prefix of it, or last for the latest).

    Every turn: the model's text, each tool call with its risk, the review with every vote, and
    the result.
    """
    from quorum.domain.errors import UsageError

    with handled():
        store = open_run_store(config_path)
        run = store.get_run(resolve_run_id(store, run_id))
        if run is None:
            raise UsageError(f"no run {run_id!r} in the run log")
        events = store.load_events(run.run_id)
        children = _children(store, run)
    if as_json:
        click.echo(json.dumps({"type": "run", **run.model_dump(mode="json")}))
        for recorded in events:
            line = recorded.event.model_dump(mode="json")
            line["at"] = recorded.at.isoformat().replace("+00:00", "Z")
            click.echo(json.dumps(line, ensure_ascii=False))
        return
    _show_header(run)
    for child in children:
        click.echo(_one_line(f"           ↳ {child.subagent} {child.run_id} · {child.status} · {child.task}", 110))
    _show_events(events)


CHILDREN_SCANNED = 500
"""How many runs started after a run ``logs show`` looks through for its delegations."""


def _children(store: Any, run: Any) -> list[Any]:
    """The delegations (subagent child runs) of ``run``, oldest first."""
    later = store.list_runs(CHILDREN_SCANNED, since=run.started_at)
    return [r for r in reversed(later) if r.parent_run_id == run.run_id and r.subagent]


def _show_header(run: Any) -> None:
    from quorum.infrastructure.terminal_text import printable

    usage = run.usage
    rows = [
        ("run", run.run_id),
        ("task", run.task),
        ("model", run.model),
        ("continues", None if run.subagent else run.parent_run_id),
        ("delegated", f"by {run.parent_run_id} to subagent {run.subagent}" if run.subagent else None),
        ("workspace", run.workspace),
        ("config", run.config_digest),
        ("started", _when(run.started_at)),
        ("ended", _when(run.ended_at) if run.ended_at else None),
        ("status", run.status + (f" ({run.detail})" if run.detail else "")),
        ("turns", f"{run.turns}, {run.tool_calls} tool calls"),
        ("tokens", amounts.run_tokens(usage)),
        ("cost", amounts.usd_or(run.cost) if not run.interrupted else None),
    ]
    for label, value in rows:
        if value:
            click.echo(printable(f"{label + ':':<11}{value}"))
    if run.interrupted:
        click.echo("           the run never finished: it was killed, crashed, or is still going")


def _show_events(events: list[Any]) -> None:
    import sys

    from quorum.cli.render.record import RecordRenderer

    renderer = RecordRenderer(sys.stdout)
    for recorded in events:
        renderer.show(recorded.event, recorded.at)
    renderer.close()


@logs.command("search")
@click.argument("text")
@click.option("-n", "limit", type=click.IntRange(min=1), default=50, show_default=True, help="Most hits.")
@json_option
@config_option
def search(text: str, limit: int, as_json: bool, config_path: Path | None) -> None:
    """Find TEXT in recorded runs.

    Searches tasks, final answers, the model's text, tool calls and results, and review reasons
    (case-insensitive for ASCII letters).
    """
    with handled():
        hits = open_run_store(config_path).search(text, limit)
    if as_json:
        for hit in hits:
            click.echo(hit.model_dump_json())
        return
    if not hits:
        click.echo(f"no match for {text!r}", err=True)
        raise SystemExit(1)
    for hit in hits:
        where = hit.where + (f"@{hit.turn}" if hit.turn is not None else "")
        click.echo(f"{hit.run_id:<16}  {_when(hit.started_at)}  {where:<14}  {_one_line(hit.excerpt)}")


@logs.command("rm")
@click.argument("run_ids", nargs=-1, required=True, metavar="RUN_ID…")
@click.option("--yes", is_flag=True, help="Delete without asking.")
@config_option
def remove(run_ids: tuple[str, ...], yes: bool, config_path: Path | None) -> None:
    """Delete runs (ids, unique prefixes, or last) and their events from the run log.

    Asks first, unless --yes; without a terminal to ask on, refuses.
    """
    import sys

    from quorum.domain.errors import UsageError

    with handled():
        store = open_run_store(config_path)
        wanted = list(dict.fromkeys(resolve_run_id(store, run_id) for run_id in run_ids))
        if not yes:
            if not sys.stdin.isatty():
                raise UsageError("logs rm deletes runs: confirm with --yes (no terminal to ask on)")
            for run_id in wanted:
                run = store.get_run(run_id)
                click.echo(
                    f"{run_id}  {_when(run.started_at) if run else '-'}  {_one_line(run.task if run else '', 60)}"
                )
            if not click.confirm(f"delete {len(wanted)} run(s)?", default=False, err=True):
                click.echo("nothing deleted", err=True)
                raise SystemExit(1)
        deleted = store.delete_runs(wanted)
    click.echo(f"deleted {deleted} run(s)", err=True)
