"""``quorum chat``: an interactive session; each message continues one recorded conversation."""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import click

from quorum.cli.commands.shared_options import config_option
from quorum.cli.errors import handled
from quorum.cli.options import AppOptions


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
@click.option("--verbose", "-v", is_flag=True, help="Full tool results and every vote.")
@click.option(
    "--color",
    type=click.Choice(["auto", "always", "never"]),
    default="auto",
    show_default=True,
    help="Color and live status (auto: on a terminal, unless NO_COLOR is set; FORCE_COLOR forces it).",
)
def chat(
    model: str | None,
    config_path: Path | None,
    workspace: Path | None,
    resume: str | None,
    continue_last: bool,
    verbose: bool,
    color: str,
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
    if workspace is not None:
        if not workspace.is_dir():
            raise click.BadParameter(f"{workspace} is not a directory", param_hint="--workspace")
        overrides["tools"] = {"workspace": str(workspace.resolve())}
    interactive = sys.stdin.isatty()
    options = AppOptions(config_path=config_path, overrides=overrides, interactive=interactive)
    display_color = color
    with handled():
        raise SystemExit(
            asyncio.run(_chat(options, model, resume or continue_last, verbose=verbose, color=display_color))
        )


async def _chat(options: AppOptions, model: str | None, resume_from: str | bool, *, verbose: bool, color: str) -> int:
    from quorum.cli.chat.conversation import Conversation
    from quorum.cli.chat.session import ChatSession
    from quorum.cli.container import build_container, user_data_dir, workspace_of
    from quorum.cli.model_choice import choose_model
    from quorum.cli.name_checks import check_configured_names
    from quorum.cli.run_setup import Display, continuation_of, require_sandbox
    from quorum.cli.signals import signals_cancel_current_task

    container = build_container(options)
    settings = container.settings()
    check_configured_names(container)
    conversation = Conversation()
    if resume_from:
        run_id = None if resume_from is True else str(resume_from)
        if run_id is not None and (store := container.run_store()) is not None:
            from quorum.cli.commands.logs import resolve_run_id

            run_id = resolve_run_id(store, run_id)
        continued = continuation_of(container, run_id)
        conversation = Conversation.resumed(continued.parent_run_id, continued.history)
        model = model or continued.model
    model_id = container.gateway().resolve(choose_model(model or settings.model, container.env()))
    session = ChatSession(
        container,
        model_id=model_id,
        display=Display(verbosity=1 if verbose else 0, color=color),
        conversation=conversation,
        interactive=options.interactive,
    )
    executor = container.tool_executor()
    lines = _line_source(options.interactive, container, user_data_dir())
    _banner(model_id, workspace_of(settings), conversation)
    with signals_cancel_current_task() as received:
        try:
            await require_sandbox(container, executor, False)
            await session.run(lines)
        except asyncio.CancelledError:
            if received.signum is None:
                raise
            asyncio.current_task().uncancel()  # type: ignore[union-attr]  # handled: the clean-up may await
        finally:
            received.armed = False
            await executor.aclose()
            await container.gateway().aclose()
    if received.signum is not None:
        print(f"quorum: {received.name} received: the chat was ended", file=sys.stderr, flush=True)
        return received.exit_code
    return 0


def _line_source(terminal: bool, container: Any, data_dir: Path) -> Any:
    from quorum.cli.chat.line_input import PipedLines, TerminalLine

    if not terminal:
        return PipedLines()

    def models() -> list[str]:
        from quorum.cli.container import known_models

        settings = container.settings()
        return [*known_models(settings), *settings.aliases]

    return TerminalLine(data_dir / "chat_history", models)


def _banner(model_id: str, workspace: Path, conversation: Any) -> None:
    from quorum.infrastructure.terminal_text import printable

    lines = [f"quorum chat · {printable(model_id)} · workspace {printable(str(workspace))}"]
    if conversation.resumed_from is not None:
        lines.append(f"continuing run {conversation.resumed_from} ({len(conversation.history)} messages)")
    lines.append("Type a message and press Enter. /help lists commands; Ctrl+D leaves.")
    print("\n".join(lines), file=sys.stderr, flush=True)
