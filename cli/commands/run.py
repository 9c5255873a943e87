"""``quorum run TASK`` and ``quorum ask QUESTION``."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import click

from quorum.application.execution import DEFAULT_SYSTEM_PROMPT
from quorum.cli.commands.shared_options import config_option
from quorum.cli.errors import (
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RUN_FAILURE,
    EXIT_STOPPED_EARLY,
    EXIT_USAGE,
    handled,
)
from quorum.cli.options import AppOptions
from quorum.cli.signals import signals_cancel_current_task

EXIT_BY_STOP = {"end_turn": EXIT_OK, "error": EXIT_RUN_FAILURE, "cancelled": EXIT_INTERRUPTED}


def run_options(func: Any) -> Any:
    """The flags shared by ``run`` and ``ask``."""
    decorators = [
        click.argument("task", nargs=-1, required=False),
        click.option("--model", "-m", metavar="PROVIDER:MODEL", help="Model to use, e.g. openai:gpt-4.1-mini."),
        config_option,
        click.option("--max-turns", type=click.IntRange(min=1), help="Tool turns before the run stops."),
        click.option("--timeout", type=click.FloatRange(min=0, min_open=True), help="Whole-run timeout (s)."),
        click.option("--json", "as_json", is_flag=True, help="One JSON object per event on stdout."),
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
        click.option("--quiet", "-q", is_flag=True, help="Only the answer and the final line."),
        click.option("--verbose", "-v", is_flag=True, help="Full tool results and every vote."),
    ]
    for decorator in reversed(decorators):
        func = decorator(func)
    return func


@click.command()
@run_options
@click.option("--yes", "-y", is_flag=True, help="Approve high-risk calls without asking.")
def run(task: tuple[str, ...], yes: bool, **flags: Any) -> None:
    """Run TASK: the model may call every tool; high-risk calls are reviewed first."""
    raise SystemExit(_main(task, low_risk_only=False, yes=yes, **flags))


@click.command()
@run_options
def ask(task: tuple[str, ...], **flags: Any) -> None:
    """Ask QUESTION: only low-risk (read-only) tools are offered; nothing is changed."""
    raise SystemExit(_main(task, low_risk_only=True, yes=False, **flags))


def _read_task(words: tuple[str, ...]) -> str:
    # Bytes that are not UTF-8 (in argv as surrogate escapes, or on stdin) become U+FFFD: the
    # task goes into JSON events and provider requests, which take only valid text.
    text = " ".join(words).encode("utf-8", "surrogateescape").decode("utf-8", "replace").strip()
    if not text and not sys.stdin.isatty():
        text = sys.stdin.buffer.read().decode("utf-8", "replace").strip()
    if not text:
        raise click.UsageError("give the task as an argument (or on stdin)")
    return text


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
) -> int:
    task = _read_task(words)
    if continue_last and resume:
        raise click.UsageError("give either --continue or --resume RUN_ID, not both")
    if no_log and (continue_last or resume):
        raise click.UsageError("--continue/--resume read the run log; they cannot be combined with --no-log")
    overrides: dict[str, Any] = {}
    if model:
        overrides["model"] = model
    agent: dict[str, Any] = {}
    if max_turns is not None:
        agent["max_tool_turns"] = max_turns
    if timeout is not None:
        agent["timeout_seconds"] = timeout
    if agent:
        overrides["agent"] = agent
    if workspace is not None:
        if not workspace.is_dir():
            raise click.BadParameter(f"{workspace} is not a directory", param_hint="--workspace")
        overrides["tools"] = {"workspace": str(workspace.resolve())}
    options = AppOptions(
        config_path=config_path,
        overrides=overrides,
        yes=yes,
        json=as_json,
        no_log=no_log,
        interactive=sys.stdin.isatty() and not as_json,
    )
    with handled():
        verbosity = -1 if quiet else (1 if verbose else 0)
        resume_from: str | bool = resume or continue_last
        return asyncio.run(_execute(task, options, low_risk_only, verbosity=verbosity, resume_from=resume_from))


async def _execute(
    task: str, options: AppOptions, low_risk_only: bool, *, verbosity: int, resume_from: str | bool = False
) -> int:
    from quorum.application.execution import RunRequest
    from quorum.cli.container import build_container, workspace_of
    from quorum.cli.model_choice import choose_model
    from quorum.cli.name_checks import check_configured_names
    from quorum.infrastructure.terminal_text import printable

    renderer: Any
    if options.json:
        from quorum.cli.render.jsonl import JsonLinesRenderer

        renderer = JsonLinesRenderer(sys.stdout)
    else:
        from quorum.cli.render.human import HumanRenderer

        renderer = HumanRenderer(sys.stdout, sys.stderr, verbosity=verbosity, color=sys.stderr.isatty())
    container = build_container(options, renderer=renderer)
    settings = container.settings()
    check_configured_names(container)
    history: tuple[Any, ...] = ()
    model = options.overrides.get("model")
    if resume_from:
        continued = _continuation(container, None if resume_from is True else str(resume_from))
        container.parent_run_id.override(continued.parent_run_id)
        history = continued.history
        model = model or continued.model
    model_id = choose_model(model or settings.model, container.env())
    system_prompt = settings.agent.system_prompt or DEFAULT_SYSTEM_PROMPT.format(workspace=workspace_of(settings))
    request = RunRequest(
        task=task,
        model_id=model_id,
        system_prompt=system_prompt,
        params=settings.agent.execution_params(tools="low_risk_only" if low_risk_only else "all"),
        history=history,
    )
    executor = container.tool_executor()
    redactor = container.redactor()
    with signals_cancel_current_task() as received:
        try:
            await _require_sandbox(container, executor, low_risk_only)
            result = await container.run_agent().execute(request)
        except asyncio.CancelledError:
            if received.signum is None:
                raise
            asyncio.current_task().uncancel()  # type: ignore[union-attr]  # handled: the clean-up may await
            result = None
        finally:
            received.armed = False
            renderer.close()
            await executor.aclose()
            await container.gateway().aclose()
            for problem in getattr(executor, "problems", ()):
                print(f"quorum: warning: {printable(redactor.text(problem))}", file=sys.stderr)
    if result is None:
        print(f"quorum: {received.name} received: the run was cancelled", file=sys.stderr, flush=True)
        return received.exit_code
    if result.stop_reason == "error":
        print(f"quorum: error: {printable(result.detail or '')}", file=sys.stderr)
    return EXIT_BY_STOP.get(result.stop_reason, EXIT_STOPPED_EARLY)


async def _require_sandbox(container: Any, executor: Any, low_risk_only: bool) -> None:
    """Refuse a run offering ``run_command`` when ``[tools.sandbox] mode = "required"`` and no sandbox works.

    Raises:
        ConfigurationError: naming the setting and how to get a sandbox.
    """
    from quorum.domain.errors import ConfigurationError

    status = container.sandbox()
    if status.mode != "required" or status.enforced or low_risk_only:
        return
    if "run_command" in (await executor.list_tools()).names():
        raise ConfigurationError(
            f"mode = 'required' and run_command is offered, but {status.no_sandbox_reason()}",
            key="tools.sandbox.mode",
        )


def _continuation(container: Any, run_id: str | None) -> Any:
    """The recorded conversation to continue (``--continue``: the last run)."""
    from quorum.application.history import continuation
    from quorum.domain.errors import UsageError

    store = container.run_store()
    if store is None:
        raise UsageError("--continue/--resume need the run log, which is disabled ([storage] enabled = false)")
    return continuation(store, run_id)


__all__ = ["EXIT_USAGE", "ask", "run"]
