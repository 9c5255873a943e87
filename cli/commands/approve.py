"""``quorum approve RUN_ID [CALL_ID…]`` and ``quorum reject RUN_ID [CALL_ID…] --reason TEXT``.

Both record a person's decision on calls a run deferred, then continue that run to its next stop
on the engine it was recorded on (``engine_of_run``: its Temporal workflow while that runs, else
this process), with the output options of ``quorum run``. The continued part runs with
``hil_mode = "defer"``: a new call needing a person stops the run ``awaiting_approval`` again.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path
from typing import Any

import click

from quorum.cli.engine import engine_option, engine_overrides, leave
from quorum.cli.errors import handled
from quorum.cli.flags import (
    color_option,
    config_option,
    events_json_option,
    quiet_option,
    stacked,
    verbose_option,
)
from quorum.cli.run_setup import Display
from quorum.composition.options import AppOptions

decide_options = stacked(
    click.argument("run_id"),
    click.argument("call_ids", nargs=-1),
    click.option("--by", metavar="NAME", help="Who decides (default: $USER)."),
    click.option("--model", "-m", metavar="PROVIDER:MODEL", help="Continue with this model (default: the run's)."),
    config_option,
    events_json_option,
    engine_option,
    quiet_option,
    verbose_option,
    color_option,
)
"""The arguments and flags shared by ``approve`` and ``reject``."""


@click.command()
@decide_options
@click.option("--reason", default="", help="Why (recorded; the model sees it).")
def approve(**flags: Any) -> None:
    """Approve pending calls of RUN_ID (all of them without CALL_ID) and continue the run.

    Only the approved calls run; the run goes on to its next stop. Exit codes as `quorum run`
    (4: it waits for approval again); 2 when a call is no longer pending.
    """
    _exit(_decide(approved=True, **flags))


@click.command()
@decide_options
@click.option("--reason", required=True, help="Why (the model sees it and may choose a safer way).")
def reject(**flags: Any) -> None:
    """Reject pending calls of RUN_ID (all of them without CALL_ID) and continue the run.

    The model is told the calls were rejected, with the reason. Exit codes as `quorum run`.
    """
    _exit(_decide(approved=False, **flags))


def _exit(code: int) -> None:
    if "temporalio.client" in sys.modules:
        leave(code)  # the Temporal client may abort at exit otherwise (sdk-python#300)
    raise SystemExit(code)


def _who(by: str | None) -> str:
    if by and by.strip():
        return by.strip()
    import getpass

    try:
        return os.environ.get("USER") or getpass.getuser()
    except (OSError, KeyError):  # no user name anywhere (a bare container)
        return "unknown"


def _decide(
    *,
    approved: bool,
    run_id: str,
    call_ids: tuple[str, ...],
    by: str | None,
    model: str | None,
    config_path: Path | None,
    as_json: bool,
    quiet: bool,
    verbose: bool,
    color: str,
    reason: str,
    engine: str | None = None,
) -> int:
    if not approved and not reason.strip():
        raise click.BadParameter("give the reason the model will see", param_hint="--reason")
    with handled():
        from quorum.cli.run_log import approvals_of, resolve_run_id
        from quorum.domain.errors import UsageError

        store = approvals_of(AppOptions(config_path=config_path))
        wanted = resolve_run_id(store, run_id)
        run = store.get_run(wanted)
        overrides: dict[str, Any] = {"review": {"hil_mode": "defer"}}
        if run is not None and run.workspace:
            if not Path(run.workspace).is_dir():
                raise UsageError(f"run {wanted} worked in {run.workspace}, which is no longer a directory")
            overrides["tools"] = {"workspace": run.workspace}
        store.close()
        overrides.update(engine_overrides(engine))
        options = AppOptions(config_path=config_path, overrides=overrides, json=as_json)
        display = Display(verbosity=-1 if quiet else (1 if verbose else 0), color=color)
        from quorum.composition.orders import DecisionOrder

        order = DecisionOrder(
            run_id=wanted, approved=approved, by=_who(by), call_ids=call_ids, reason=reason.strip(), model=model
        )
        return asyncio.run(_continue(order, options, display))


async def _continue(order: Any, options: AppOptions, display: Display) -> int:
    """Continue the run on the engine it was recorded on: its workflow while that runs, else here.

    Where a run lives is recorded with it (``runs.engine``), so ``approve``/``reject`` need no
    ``--engine``. A run on Temporal has the decision claimed in the run log here (exit 2 when a
    call is no longer pending: someone decided first), signalled to its workflow and followed.
    """
    from dataclasses import replace

    from quorum.cli.compose import compose
    from quorum.cli.run_setup import exit_code, renderer_for, run_in_foreground
    from quorum.composition.engines import engine_of_run
    from quorum.composition.runtime import Runtime

    runtime = Runtime(compose(options))  # built for the run's recorded workspace: its calls run there
    engine = await engine_of_run(runtime, order.run_id)
    renderer = renderer_for(options.json, display)
    order = replace(order, observers=(renderer,))
    if not engine.in_process:  # its workflow runs the calls where it was started
        result = await engine.decide(order)
        renderer.close()
        return exit_code(result, as_json=options.json)
    return await run_in_foreground(runtime, renderer, lambda: engine.decide(order), as_json=options.json)
