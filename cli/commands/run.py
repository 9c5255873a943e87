"""``quorum run TASK`` and ``quorum ask TASK``."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import click

from quorum.cli.engine import engine_option, engine_overrides, leave
from quorum.cli.errors import (
    EXIT_USAGE,
    handled,
)
from quorum.cli.flags import (
    color_option,
    config_option,
    events_json_option,
    instructions_override,
    project_instructions_option,
    quiet_option,
    reasoning_option,
    stacked,
    verbose_option,
)
from quorum.cli.run_setup import (
    Display,
    continuation_of,
    renderer_for,
    run_in_foreground,
    say_instructions,
    terminal_prompts,
)
from quorum.cli.task_input import read_task
from quorum.composition.options import AppOptions

run_options = stacked(
    click.argument("task", nargs=-1, required=False),
    click.option("--model", "-m", metavar="PROVIDER:MODEL", help="Model to use, e.g. openai:gpt-4.1-mini."),
    config_option,
    click.option("--max-turns", type=click.IntRange(min=1), help="Tool turns before the run stops."),
    click.option("--timeout", type=click.FloatRange(min=0, min_open=True), help="Whole-run timeout (s)."),
    events_json_option,
    click.option(
        "--workspace",
        "-w",
        type=click.Path(path_type=Path, file_okay=False),
        help="Directory the tools act in (default: current directory).",
    ),
    click.option("--no-log", is_flag=True, help="Do not record this run in the run log."),
    click.option(
        "--continue",
        "continue_last",
        is_flag=True,
        help="Continue the conversation of the last recorded run.",
    ),
    click.option("--resume", "resume", metavar="RUN_ID", help="Continue the conversation of run RUN_ID."),
    quiet_option,
    verbose_option,
    color_option,
    project_instructions_option,
)
"""The flags shared by ``run`` and ``ask``."""


@click.command()
@run_options
@click.option("--yes", "-y", is_flag=True, help="Approve high-risk calls without asking.")
@click.option(
    "--defer",
    is_flag=True,
    help="Do not wait for a person: calls needing one stay pending, the run exits 4 (see quorum approve).",
)
@click.option(
    "--plan",
    is_flag=True,
    help="Plan mode: explore read-only and propose a plan; the plan is reviewed before anything changes.",
)
@click.option(
    "--no-human",
    is_flag=True,
    help="Nobody is asked (CI): calls needing a person are decided by the reviewer panel alone, "
    "or rejected at once ([review] hil_mode = auto_reject).",
)
@click.option(
    "--output-schema",
    type=click.Path(path_type=Path, dir_okay=False),
    metavar="FILE",
    help="A JSON Schema the final answer must match: stdout is then only that JSON document "
    "(exit 3, invalid_output, when the model's answer does not match after 2 more tries).",
)
@reasoning_option
@engine_option
@click.option("--detach", is_flag=True, help="With the Temporal engine: print the run id and exit; the run goes on.")
def run(
    task: tuple[str, ...],
    yes: bool,
    defer: bool,
    plan: bool,
    no_human: bool,
    output_schema: Path | None,
    reasoning: str | None,
    engine: str | None,
    detach: bool,
    **flags: Any,
) -> None:
    """Run TASK: the model may call every tool; high-risk calls are reviewed first.

    Text piped in is attached to TASK when its first byte arrives within 3 s (an open pipe nobody
    writes to is not waited for); TASK "-" means: the task is what stdin holds, however long it takes.
    """
    if sum((defer, yes, no_human)) > 1:
        raise click.UsageError("give one of --yes, --defer and --no-human, not several")
    if defer and flags.get("no_log"):
        raise click.UsageError("--defer records pending calls in the run log; it cannot be combined with --no-log")
    flags["overrides"] = engine_overrides(engine)
    if defer or no_human:
        flags["overrides"]["review"] = {"hil_mode": "defer" if defer else "auto_reject"}
    if output_schema is not None:
        from quorum.cli.output_schema import read_schema

        flags["output_schema"] = read_schema(output_schema)
    if plan:
        flags["overrides"].setdefault("agent", {})["plan"] = "always"
    if reasoning is not None:
        flags["overrides"].setdefault("agent", {})["reasoning"] = reasoning
    code = _main(task, low_risk_only=False, yes=yes, detach=detach, no_human=no_human, **flags)
    if "temporalio.client" in sys.modules:
        leave(code)  # the Temporal client may abort at exit otherwise (sdk-python#300)
    raise SystemExit(code)


@click.command()
@run_options
def ask(task: tuple[str, ...], **flags: Any) -> None:
    """Ask TASK (a question): only low-risk (read-only) tools are offered; nothing is changed.

    Text piped in is attached to TASK when its first byte arrives within 3 s (an open pipe nobody
    writes to is not waited for); TASK "-" means: the task is what stdin holds, however long it takes.
    """
    raise SystemExit(_main(task, low_risk_only=True, yes=False, **flags))


def _terminal_fd() -> int | None:
    """A descriptor on the controlling terminal when stdin is not one but a person watches stderr.

    ``git diff | quorum run "review this"``: stdin is the diff, yet the review can still ask on
    the terminal. Only when stderr is a terminal: a run whose output is captured has nobody to ask.
    """
    if sys.stdin.isatty() or not sys.stderr.isatty():
        return None
    import os

    try:
        return os.open("/dev/tty", os.O_RDWR | os.O_NOCTTY)
    except OSError:
        return None


def _main(
    words: tuple[str, ...],
    *,
    low_risk_only: bool,
    yes: bool,
    model: str | None,
    config_path: Path | None,
    max_turns: int | None,
    timeout: float | None,
    as_json: bool,
    workspace: Path | None,
    no_log: bool,
    continue_last: bool,
    resume: str | None,
    quiet: bool,
    verbose: bool,
    color: str,
    no_project_instructions: bool = False,
    overrides: dict[str, Any] | None = None,
    detach: bool = False,
    no_human: bool = False,
    output_schema: dict[str, Any] | None = None,
) -> int:
    task = read_task(words)
    if continue_last and resume:
        raise click.UsageError("give either --continue or --resume RUN_ID, not both")
    if no_log and (continue_last or resume):
        raise click.UsageError("--continue/--resume read the run log; they cannot be combined with --no-log")
    overrides = instructions_override(dict(overrides or {}), no_project_instructions)
    if model:
        overrides["model"] = model
    agent: dict[str, Any] = {}
    if max_turns is not None:
        agent["max_tool_turns"] = max_turns
    if timeout is not None:
        agent["timeout_seconds"] = timeout
    if agent:
        overrides["agent"] = {**overrides.get("agent", {}), **agent}
    if workspace is not None:
        if not workspace.is_dir():
            raise click.BadParameter(f"{workspace} is not a directory", param_hint="--workspace")
        overrides["tools"] = {"workspace": str(workspace.resolve())}
    tty_fd = None if as_json or no_human else _terminal_fd()
    options = AppOptions(
        config_path=config_path,
        overrides=overrides,
        yes=yes,
        json=as_json,
        no_log=no_log,
        interactive=(sys.stdin.isatty() or tty_fd is not None) and not as_json and not no_human,
    )
    try:
        with handled():
            verbosity = -1 if quiet else (1 if verbose else 0)
            resume_from: str | bool = resume or continue_last
            display = Display(verbosity=verbosity, color=color, tty_fd=tty_fd, document=output_schema is not None)
            return asyncio.run(
                _execute(
                    task,
                    options,
                    low_risk_only,
                    display=display,
                    resume_from=resume_from,
                    detach=detach,
                    output_schema=output_schema,
                )
            )
    finally:
        if tty_fd is not None:
            import os

            os.close(tty_fd)


async def _execute(
    task: str,
    options: AppOptions,
    low_risk_only: bool,
    *,
    display: Display,
    resume_from: str | bool = False,
    detach: bool = False,
    output_schema: dict[str, Any] | None = None,
) -> int:
    from quorum.cli.compose import compose
    from quorum.cli.name_checks import check_configured_names
    from quorum.composition.conventions import expand, prompt_commands
    from quorum.composition.engines import engine_class, engine_for
    from quorum.composition.orders import RunOrder
    from quorum.composition.runtime import Runtime
    from quorum.domain.errors import UsageError
    from quorum.infrastructure.review.settings import ReviewSettings

    renderer = renderer_for(options.json, display)
    container = compose(options)
    settings = container.settings()
    chosen = engine_class(settings)
    if detach and not chosen.detachable:
        raise UsageError("--detach starts the run on Temporal: give --engine temporal (or [engine] kind)")
    asks_here = not options.json and options.interactive and chosen.in_process
    human, line_prompt = terminal_prompts(renderer, display.tty_fd, settings) if asks_here else (None, None)
    runtime = Runtime(container, line_prompt=line_prompt)
    check_configured_names(container)
    if settings.section(ReviewSettings).hil_mode == "defer" and not low_risk_only and container.run_store() is None:
        raise UsageError("hil_mode = 'defer' keeps pending calls in the run log, which is disabled for this run")
    expanded = expand(task, prompt_commands(settings, container.config_dir()))  # "/NAME args"
    say_instructions(renderer, container)
    history: tuple[Any, ...] = ()
    model = options.overrides.get("model") or expanded.model
    parent_run_id = None
    if resume_from:
        continued = continuation_of(container, None if resume_from is True else str(resume_from))
        parent_run_id, history = continued.parent_run_id, tuple(continued.history)
        model = model or continued.model
    order = RunOrder(
        expanded.task,
        model=model,
        history=history,
        tools="low_risk_only" if low_risk_only else "all",
        parent_run_id=parent_run_id,
        observers=(renderer,),
        plan=False if low_risk_only else expanded.plan,  # ask never plans: it changes nothing anyway
        human=human,
        output_schema=output_schema,
    )
    engine = engine_for(runtime)
    if not engine.in_process:
        from quorum.cli.temporal_runs import execute_elsewhere

        async with runtime:
            return await execute_elsewhere(runtime, engine, order, options=options, renderer=renderer, detach=detach)
    return await run_in_foreground(
        runtime, renderer, lambda: engine.run(order), low_risk_only=low_risk_only, as_json=options.json
    )


__all__ = ["EXIT_USAGE", "ask", "run"]
