"""``quorum stats``: totals over the run log (runs, turns, tools, reviewers)."""

from __future__ import annotations

from pathlib import Path

import click

from quorum.cli.errors import handled
from quorum.cli.flags import config_option, json_option
from quorum.cli.run_log import open_run_store
from quorum.domain import amounts


def _ms(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f} ms"


@click.command()
@json_option
@config_option
def stats(as_json: bool, config_path: Path | None) -> None:
    """Statistics over recorded runs.

    Runs by status, turns, tokens (the reviewer models' apart) and cost, tool calls by tool (error
    rate, median duration), and each reviewer's votes and approval rate.
    """
    with handled():
        totals = open_run_store(config_path).stats()
    if as_json:
        click.echo(totals.model_dump_json())
        return
    by_status = ", ".join(f"{status} {n}" for status, n in sorted(totals.runs_by_status.items()))
    click.echo(f"runs:       {totals.runs}" + (f" ({by_status})" if by_status else ""))
    click.echo(f"turns:      {totals.turns}")
    click.echo(f"tool calls: {totals.tool_calls}")
    click.echo(f"tokens:     {amounts.run_tokens(totals.usage)}")
    unpriced = f" ({totals.unpriced_runs} run(s) without known prices not counted)" if totals.unpriced_runs else ""
    click.echo(f"cost:       {amounts.usd_or(totals.cost)}{unpriced}")
    if totals.tools:
        width = max(len("TOOL"), *(len(t.name) for t in totals.tools))
        click.echo(f"\n{'TOOL':<{width}}  CALLS  ERRORS  REJECTED  ERROR RATE  MEDIAN DURATION")
        for t in totals.tools:
            click.echo(
                f"{t.name:<{width}}  {t.calls:>5}  {t.errors:>6}  {t.rejected:>8}  {t.error_rate:>10.1%}  "
                f"{_ms(t.median_duration_ms):>15}"
            )
    if totals.reviewers:
        width = max(len("REVIEWER"), *(len(r.reviewer) for r in totals.reviewers))
        click.echo(f"\n{'REVIEWER':<{width}}  VOTES  APPROVED  REJECTED  ERRORS  APPROVAL  MEDIAN LATENCY")
        for r in totals.reviewers:
            click.echo(
                f"{r.reviewer:<{width}}  {r.votes:>5}  {r.approvals:>8}  {r.rejections:>8}  {r.errors:>6}  "
                f"{r.approval_rate:>8.1%}  {_ms(r.median_latency_ms):>14}"
            )
    if totals.decisions_by:
        decided = ", ".join(f"{who} {n}" for who, n in totals.decisions_by.items())
        click.echo(f"\nreview decisions by: {decided}")
