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
from typing import Any

import click

from quorum.cli.commands.shared_options import config_option
from quorum.cli.engine import leave, temporal_settings
from quorum.cli.errors import handled
from quorum.cli.options import AppOptions


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


def compose(config_path: Path | None, workspace: str) -> Any:
    """The worker's ``RunParts`` for runs in ``workspace``: its own configuration, the workspace overridden."""
    from quorum.cli.commands.pending import as_approvals
    from quorum.cli.container import build_container
    from quorum.cli.run_setup import with_tool_notes
    from quorum.infrastructure.engines.temporal.activities import RunParts
    from quorum.infrastructure.review.call_viewer import WorkspaceCallViewer

    overrides = {"tools": {"workspace": workspace}, "review": {"hil_mode": "defer"}}
    container = build_container(AppOptions(config_path=config_path, overrides=overrides))
    store = as_approvals(container.run_store())
    executor = container.tool_executor()
    gateway = container.gateway()
    gate = container.reviewer()

    async def notes(prompt: str | None) -> str | None:
        return await with_tool_notes(prompt, executor)

    async def close() -> None:
        await executor.aclose()
        await gateway.aclose()

    return RunParts(
        gateway=gateway,
        executor=executor,
        schema=container.schema(),
        rules=tuple(gate.rules),
        panel=gate.panel,
        escalate_on_reject=gate.escalate_on_reject,
        viewer=WorkspaceCallViewer(Path(workspace)),
        store=store,
        payloads=store,
        approvals=store,
        redactor=container.redactor(),
        prices=container.prices(),
        system_notes=notes,
        close=close,
        workspace=workspace,
    )


async def _serve(concurrency: int, config_path: Path | None) -> None:
    from quorum.cli.container import build_container

    settings = build_container(AppOptions(config_path=config_path)).settings()
    engine = temporal_settings(settings)
    from quorum.infrastructure.engines.temporal.activities import QuorumActivities
    from quorum.infrastructure.engines.temporal.client import connect
    from quorum.infrastructure.engines.temporal.worker import build_worker

    client = await connect(engine)
    activities = QuorumActivities(lambda workspace: compose(config_path, workspace))
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
