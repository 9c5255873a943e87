"""``quorum chat``: an interactive session; each message continues one recorded conversation."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import click

from quorum.cli.flags import (
    color_option,
    config_option,
    instructions_override,
    project_instructions_option,
    reasoning_option,
    verbose_option,
)

# Only click and the option decorators at import: ``quorum chat --help`` must stay fast.


@click.command()
@click.option("--model", "-m", metavar="PROVIDER:MODEL", help="Model to use (an alias or a bare model name works).")
@config_option
@click.option(
    "--workspace",
    "-w",
    type=click.Path(path_type=Path, file_okay=False),
    help="Directory the tools act in (default: current directory).",
)
@click.option("--resume", "resume", metavar="RUN_ID", help="Continue the conversation of run RUN_ID (any prefix).")
@click.option("--continue", "continue_last", is_flag=True, help="Continue the conversation of the last recorded run.")
@click.option(
    "--max-cost",
    "max_cost",
    type=click.FloatRange(min=0, min_open=True),
    metavar="USD",
    help="Cost cap of the whole session (agent and reviewers); a run that passes it stops max_cost.",
)
@reasoning_option
@verbose_option
@color_option
@project_instructions_option
def chat(
    model: str | None,
    config_path: Path | None,
    workspace: Path | None,
    resume: str | None,
    continue_last: bool,
    max_cost: float | None,
    reasoning: str | None,
    verbose: bool,
    color: str,
    no_project_instructions: bool,
) -> None:
    """Chat with the agent: each message continues the same conversation, tools and review included.

    \b
    Enter sends; Alt+Enter (or Esc then Enter) inserts a newline; Ctrl+C cancels the running turn;
    Ctrl+D (or Ctrl+C twice on an empty line) leaves. /help lists the slash commands.
    Offline demo: quorum chat -m scripted:demo
    """  # noqa: D301  (not raw: click's no-rewrap marker is the backspace character "\b" stands for)
    if continue_last and resume:
        raise click.UsageError("give either --continue or --resume RUN_ID, not both")
    overrides: dict[str, Any] = {}
    if model:
        overrides["model"] = model
    if reasoning is not None:
        overrides["agent"] = {"reasoning": reasoning}
    if workspace is not None:
        if not workspace.is_dir():
            raise click.BadParameter(f"{workspace} is not a directory", param_hint="--workspace")
        overrides["tools"] = {"workspace": str(workspace.resolve())}
    instructions_override(overrides, no_project_instructions)
    from quorum.cli.errors import handled
    from quorum.composition.options import AppOptions

    interactive = sys.stdin.isatty()
    options = AppOptions(config_path=config_path, overrides=overrides, interactive=interactive)
    display_color = color
    import asyncio

    with handled():
        raise SystemExit(
            asyncio.run(
                _chat(options, model, resume or continue_last, verbose=verbose, color=display_color, max_cost=max_cost)
            )
        )


async def _chat(
    options: Any, model: str | None, resume_from: str | bool, *, verbose: bool, color: str, max_cost: float | None
) -> int:
    """The session: on a terminal the prompt is drawn first and the rest is set up while a person types."""
    import asyncio

    print("quorum chat · /help lists commands · Ctrl+D leaves", file=sys.stderr, flush=True)
    lines: Any
    if options.interactive:
        lines, ready = await _prompt_first(options, model, resume_from)
    else:
        from quorum.cli.chat.line_input import PipedLines

        ready = _prepare(options, model, resume_from)
        lines = PipedLines()
    await _say(ready.banner(), prompt_active=options.interactive)

    from quorum.cli.chat.session import ChatSession, CurrentRenderer
    from quorum.cli.run_setup import Display, terminal_prompts
    from quorum.cli.signals import signals_cancel_current_task
    from quorum.composition.runtime import Runtime

    current = CurrentRenderer()  # MCP servers' questions hide the status of the message under way
    line_prompt = terminal_prompts(current, None, ready.container.settings())[1] if options.interactive else None
    runtime = Runtime(ready.container, line_prompt=line_prompt)
    session = ChatSession(
        runtime,
        model_id=ready.model_id,
        display=Display(verbosity=1 if verbose else 0, color=color),
        conversation=ready.conversation,
        interactive=options.interactive,
        max_cost=max_cost,
        current_renderer=current,
    )
    with signals_cancel_current_task() as received:
        try:
            runtime.open()
            await runtime.require_sandbox(False)
            await session.run(lines)
        except asyncio.CancelledError:
            if not received.cancelled_the_task():
                raise
        finally:  # not ``async with runtime``: it closes after the cancellation is taken back
            received.armed = False
            await runtime.aclose()
    if received.signum is not None:
        print(f"quorum: {received.name} received: the chat was ended", file=sys.stderr, flush=True)
        return received.exit_code
    return 0


class _Ready:
    """What a chat needs, set up: the container, the model and the conversation to go on with."""

    def __init__(self, container: Any, model_id: str, conversation: Any) -> None:
        self.container = container
        self.model_id = model_id
        self.conversation = conversation

    def models(self) -> list[str]:
        """Model ids ``/model`` completes: those the configuration names, and its aliases."""
        from quorum.composition.container import known_models

        settings = self.container.settings()
        return [*known_models(settings), *settings.aliases]

    def banner(self) -> str:
        from quorum.composition.paths import workspace_of
        from quorum.infrastructure.terminal_text import printable

        workspace = workspace_of(self.container.settings())
        lines = [f"model {printable(self.model_id)} · workspace {printable(str(workspace))}"]
        if self.conversation.resumed_from is not None:
            resumed = self.conversation
            lines.append(f"continuing run {resumed.resumed_from} ({len(resumed.history)} messages)")
        return "\n".join(lines)


def _prepare(options: Any, model: str | None, resume_from: str | bool) -> _Ready:
    """Build the container, check the configured names, pick the model, load a resumed conversation.

    Raises:
        QuorumError: a configuration or usage error (reported by the caller, as for ``run``).
    """
    from quorum.cli.chat.conversation import Conversation
    from quorum.cli.compose import compose
    from quorum.cli.name_checks import check_configured_names
    from quorum.composition.model_choice import choose_model

    container = compose(options)
    settings = container.settings()
    check_configured_names(container)
    conversation = Conversation()
    if resume_from:
        from quorum.cli.chat.session import resumed

        conversation, resumed_model = resumed(container, None if resume_from is True else str(resume_from))
        model = model or resumed_model
    # Aliases and bare model names become provider:model here, so the run log and prices see the real model.
    model_id = container.gateway().resolve(choose_model(model or settings.model, container.env()))
    container.gateway().session(model_id, None)  # an unknown provider or a missing key: said now, not after typing
    return _Ready(container, model_id, conversation)


_WARM_MODULES = (
    "quorum.composition.container",
    "quorum.cli.chat.session",
    "quorum.composition.runs",
    "quorum.cli.name_checks",
    "quorum.cli.render.human",
    "quorum.application.use_cases.run_agent",
    "rich.console",
    "rich.markdown",
    "rich.live",
)
"""Imported in a thread while the prompt waits for the first keys (imports hold no loop state)."""


def _warm_imports() -> None:
    import importlib

    for name in _WARM_MODULES:
        importlib.import_module(name)


async def _prompt_first(options: Any, model: str | None, resume_from: str | bool) -> tuple[Any, _Ready]:
    """Draw the prompt at once, then set up while the person types the first message.

    Most of a chat's start is importing and validating (the configuration, the plugins, the
    model): done before the prompt, it would keep a person waiting for the first keystroke. The
    first line typed is answered once the set-up is done; a set-up error ends the chat as it
    would end ``quorum run``.
    """
    import asyncio

    import platformdirs

    from quorum.cli.chat.line_input import FirstLineThen, TerminalLine

    models: list[str] = []
    drawn = asyncio.Event()
    terminal = TerminalLine(
        Path(platformdirs.user_data_dir("quorum")) / "chat_history", lambda: models, on_drawn=drawn.set
    )
    first = asyncio.ensure_future(terminal.read())
    waiting = asyncio.ensure_future(drawn.wait())
    try:
        await asyncio.wait({first, waiting}, return_when=asyncio.FIRST_COMPLETED)
        await asyncio.to_thread(_warm_imports)
        ready = _prepare(options, model, resume_from)
    except BaseException:
        first.cancel()
        await asyncio.gather(first, return_exceptions=True)  # the prompt gives the terminal back
        raise
    finally:
        waiting.cancel()
    models.extend(ready.models())
    return FirstLineThen(first, terminal), ready


async def _say(text: str, *, prompt_active: bool) -> None:
    """Print ``text`` on stderr, above the prompt when one is drawn."""

    def write() -> None:
        print(text, file=sys.stderr, flush=True)

    if not prompt_active:
        write()
        return
    from prompt_toolkit.application import run_in_terminal

    await run_in_terminal(write)
