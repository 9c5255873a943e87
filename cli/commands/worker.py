"""``quorum worker [--concurrency N]``: host Quorum's run workflow and its activities on Temporal.

Start as many as you like, on as many machines as share the run log and see the same workspace
paths. Each worker composes its own tools, providers, keys and reviewer panel from its own
configuration (``./quorum.toml`` where it starts, the user config, the environment), once per
workspace a run names. Ctrl+C stops it; runs in flight go on on another worker (or this one,
restarted) without repeating completed calls.
"""

from __future__ import annotations

import asyncio
import signal
import sys
from pathlib import Path

import click

from quorum.cli.engine import leave, temporal_settings
from quorum.cli.errors import handled
from quorum.cli.flags import config_option
from quorum.composition.options import AppOptions


@click.command()
@click.option(
    "--concurrency", type=click.IntRange(min=1), default=16, show_default=True, help="Activities run at once."
)
@config_option
def worker(concurrency: int, config_path: Path | None) -> None:
    """Run a Temporal worker for `quorum run --engine temporal` (until Ctrl+C)."""
    code = 0
    with handled():
        try:
            asyncio.run(_serve(concurrency, config_path))
        except SystemExit as exit_:
            code = int(exit_.code or 0)
    leave(code)


async def _serve(concurrency: int, config_path: Path | None) -> None:
    from quorum.cli.compose import compose
    from quorum.cli.errors import redact_errors_with

    settings = compose(AppOptions(config_path=config_path)).settings()
    engine = temporal_settings(settings)
    from quorum.composition.worker import worker_parts
    from quorum.infrastructure.engines.temporal.activities import QuorumActivities
    from quorum.infrastructure.engines.temporal.client import connect
    from quorum.infrastructure.engines.temporal.worker import build_worker

    client = await connect(engine)
    activities = QuorumActivities(lambda workspace: worker_parts(config_path, workspace, redact_errors_with))
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for signum in (signal.SIGINT, signal.SIGTERM):
        loop.add_signal_handler(signum, stop.set)
    try:
        async with build_worker(client, engine.task_queue, activities, concurrency=concurrency):
            print(
                f"quorum worker: task queue {engine.task_queue} on {engine.address} (namespace {engine.namespace}),"
                f" {concurrency} activities at a time; Ctrl+C stops",
                file=sys.stderr,
                flush=True,
            )
            await stop.wait()
    finally:
        await activities.aclose()
    print("quorum worker: stopped", file=sys.stderr, flush=True)
