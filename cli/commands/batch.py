"""``quorum batch TASKS.jsonl``: run many tasks, each its own recorded run, and say how each ended.

Exit codes: 0 when every task ended ``end_turn`` (now or in an earlier batch); otherwise 1 when
any failed (an error, an interrupted or cancelled run, or a task that could not start), else 3
when any stopped early (turn, time or token limit, or rejected), else 4 when any waits for
approval; 2 for a usage or configuration error before any task ran; 130/143/129 when interrupted
(the runs in flight end ``cancelled``).
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import click

from quorum.cli.engine import engine_option
from quorum.cli.errors import EXIT_AWAITING_APPROVAL, EXIT_OK, EXIT_RUN_FAILURE, EXIT_STOPPED_EARLY, handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions

DEFAULT_CONCURRENCY = 4


@click.command()
@click.argument("tasks_file", metavar="TASKS.jsonl", type=click.Path(path_type=Path, dir_okay=False))
@click.option(
    "--concurrency",
    "-n",
    type=click.IntRange(min=1),
    default=DEFAULT_CONCURRENCY,
    show_default=True,
    help="Tasks running at once.",
)
@engine_option
@click.option("--json", "as_json", is_flag=True, help="One JSON object per task, then a summary object.")
@config_option
def batch(tasks_file: Path, concurrency: int, engine: str | None, as_json: bool, config_path: Path | None) -> None:
    """Run every task of TASKS.jsonl, each its own run, at most --concurrency at once.

    Each line: {"task": "...", "id": "...", "model": "...", "workspace": "..."} (only "task" is
    required; a workspace is relative to the file). Running the same file again skips the tasks
    already done or waiting for approval, and runs the others again.

    High-risk calls that need a person are deferred (see quorum pending / approve) unless
    [review] hil_mode says otherwise. Exit 0 only when every task ended end_turn; else 1 (some
    failed), 3 (some stopped early) or 4 (some wait for approval), in that order.
    """
    options = AppOptions(config_path=config_path, json=as_json, interactive=False)
    with handled():
        raise SystemExit(asyncio.run(_batch(tasks_file, options, concurrency, engine, as_json)))


def exit_code_of(categories: set[str]) -> int:
    """The batch's exit code from the categories its tasks ended in (see the module docstring)."""
    for category, code in (("failed", EXIT_RUN_FAILURE), ("stopped", EXIT_STOPPED_EARLY)):
        if category in categories:
            return code
    return EXIT_AWAITING_APPROVAL if "waiting" in categories else EXIT_OK


def _batch_options(options: AppOptions, engine: str | None) -> tuple[AppOptions, Any]:
    """The options every task's composition gets, and the validated settings.

    Nobody answers a terminal prompt in a batch: ``hil_mode = "interactive"`` becomes ``defer``.
    """
    from dataclasses import replace

    from quorum.cli.compose import compose
    from quorum.cli.engine import engine_overrides
    from quorum.domain.errors import UsageError
    from quorum.infrastructure.review.settings import ReviewSettings
    from quorum.infrastructure.storage.settings import StorageSettings

    overrides: dict[str, Any] = engine_overrides(engine)
    settings = compose(replace(options, overrides=overrides)).settings()
    if not settings.section(StorageSettings).enabled:
        raise UsageError("quorum batch records every task in the run log ([storage] enabled = false)")
    if settings.section(ReviewSettings).hil_mode == "interactive":
        overrides["review"] = {"hil_mode": "defer"}
    return replace(options, overrides=overrides), settings


async def _batch(tasks_file: Path, options: AppOptions, concurrency: int, engine: str | None, as_json: bool) -> int:
    from quorum.cli.batch.engines import BatchEngines
    from quorum.cli.batch.progress import HumanProgress, JsonProgress
    from quorum.cli.batch.tasks import plan, read_tasks, run_tasks
    from quorum.cli.compose import compose
    from quorum.cli.signals import signals_cancel_current_task

    tasks = read_tasks(tasks_file)
    options, _ = _batch_options(options, engine)
    composition = compose(options)
    store = composition.run_store()
    assert store is not None  # _batch_options refused a disabled log
    finished, to_run = plan(tasks, store)
    runner = BatchEngines(options, composition)
    runner.engine(None)  # the engine is chosen now: a missing Temporal extra is said before any task
    progress: Any = JsonProgress() if as_json else HumanProgress(len(tasks), live=sys.stderr.isatty())
    for outcome in finished:
        progress.ended(outcome)
    with signals_cancel_current_task() as received:
        try:
            outcomes = await run_tasks(
                to_run, runner, concurrency, on_start=progress.started, on_outcome=progress.ended
            )
        except asyncio.CancelledError:
            if not received.cancelled_the_task():
                raise
            outcomes = None
        finally:
            received.armed = False
            await runner.aclose()
    if outcomes is None:
        print(f"quorum: {received.name} received: the batch was cancelled", file=sys.stderr, flush=True)
        return received.exit_code
    everything = [*finished, *outcomes]
    code = exit_code_of({outcome.category for outcome in everything})
    progress.finish(everything, code)
    return code
