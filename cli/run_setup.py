"""What ``run``, ``ask`` and ``chat`` share: how a run is shown, who is asked, what it needs first."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any

from quorum.application import model_wording as say
from quorum.application.execution import DEFAULT_SYSTEM_PROMPT
from quorum.cli.errors import (
    EXIT_AWAITING_APPROVAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RUN_FAILURE,
    EXIT_STOPPED_EARLY,
)


@dataclass(frozen=True)
class Display:
    """How a run is shown: ``-q``/``-v``, ``--color``, and the terminal a review may ask on."""

    verbosity: int = 0
    color: str = "auto"
    tty_fd: int | None = None


def renderer_for(as_json: bool, display: Display) -> Any:
    """``--json``: one JSON object per event on stdout; otherwise the human renderer."""
    if as_json:
        from quorum.cli.render.jsonl import JsonLinesRenderer

        return JsonLinesRenderer(sys.stdout)
    return human_renderer(display)


def human_renderer(display: Display) -> Any:
    """A ``HumanRenderer`` on stdout/stderr: color per ``--color`` and the environment, live status on a terminal."""
    import os

    from quorum.cli.render.color import use_color
    from quorum.cli.render.human import HumanRenderer

    color = use_color(display.color, sys.stderr, os.environ)  # type: ignore[arg-type]
    live = display.verbosity >= 0 and sys.stderr.isatty()
    return HumanRenderer(sys.stdout, sys.stderr, verbosity=display.verbosity, color=color, live=live)


def ask_through(container: Any, renderer: Any, tty_fd: int | None, settings: Any) -> None:
    """The human review asks on the terminal (``tty_fd`` when stdin is a pipe) beside the renderer."""
    from dependency_injector import providers

    from quorum.cli.container import workspace_of
    from quorum.cli.render.prompt import RendererLinePrompt, RendererPrompt
    from quorum.infrastructure.review.terminal import TerminalPrompt
    from quorum.infrastructure.tools.workspace import Workspace

    terminal = TerminalPrompt(tty_fd, workspace=Workspace(workspace_of(settings)))
    container.human_prompt.override(providers.Object(RendererPrompt(terminal, renderer)))
    container.line_prompt.override(providers.Object(RendererLinePrompt(terminal, renderer)))  # MCP servers ask too


async def require_sandbox(container: Any, executor: Any, low_risk_only: bool) -> None:
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


def continuation_of(container: Any, run_id: str | None) -> Any:
    """The recorded conversation to continue (``--continue``: the last run)."""
    from quorum.application.history import continuation
    from quorum.domain.errors import UsageError

    store = container.run_store()
    if store is None:
        raise UsageError("--continue/--resume need the run log, which is disabled ([storage] enabled = false)")
    return continuation(store, run_id)


async def with_tool_notes(prompt: str | None, executor: Any) -> str | None:
    """``prompt`` followed by the tool sources' notes (MCP server instructions), when there are any.

    Starts the eager MCP servers, as listing the tools would; their start events are said at the
    run's start.
    """
    from quorum.infrastructure.plugins.contracts import ToolSourceNotes

    notes = list(await executor.prompt_notes()) if isinstance(executor, ToolSourceNotes) else []
    return "\n\n".join([prompt or "", *notes]).strip() if notes else prompt


def system_prompt(settings: Any) -> str:
    """The agent's system prompt: ``[agent] system_prompt``, else the default naming the workspace."""
    from quorum.cli.container import workspace_of

    return str(settings.agent.system_prompt or DEFAULT_SYSTEM_PROMPT.format(workspace=workspace_of(settings)))


EXIT_BY_STOP = {
    "end_turn": EXIT_OK,
    "error": EXIT_RUN_FAILURE,
    "cancelled": EXIT_INTERRUPTED,
    "awaiting_approval": EXIT_AWAITING_APPROVAL,
}
"""Exit code by stop reason; any other stop (a limit, rejections) is ``EXIT_STOPPED_EARLY``."""


def exit_code(result: Any, *, as_json: bool) -> int:
    """The exit code of a finished run; says on stderr what the human output's final line cannot."""
    from quorum.cli.render.words import approve_hint
    from quorum.infrastructure.terminal_text import printable

    if result.stop_reason == "error" and as_json:  # the human output's final line says it
        print(f"quorum: error: {printable(result.detail or '')}", file=sys.stderr)
    if result.stop_reason == "awaiting_approval" and not as_json:
        print(printable(approve_hint(result.run_id)), file=sys.stderr, flush=True)
    return EXIT_BY_STOP.get(result.stop_reason, EXIT_STOPPED_EARLY)


async def run_in_foreground(
    container: Any,
    renderer: Any,
    execute: Callable[[str | None], Awaitable[Any]],
    *,
    low_risk_only: bool = False,
    as_json: bool = False,
) -> int:
    """Run one run to its end in this process; the command's exit code.

    ``execute(system_prompt)`` runs it with the system prompt to use (the configured one, then the
    tool sources' notes, i.e. MCP servers' instructions) and returns its ``RunResult``. Around it:
    the sandbox requirement, SIGTERM/SIGHUP ending the run as Ctrl+C does (exit ``128 + signal``),
    and the clean-up (renderer, tool sources, provider clients, the tool sources' warnings).
    """
    import asyncio

    from quorum.cli.signals import signals_cancel_current_task
    from quorum.infrastructure.terminal_text import printable

    executor = container.tool_executor()
    redactor = container.redactor()
    with signals_cancel_current_task() as received:
        try:
            await require_sandbox(container, executor, low_risk_only)
            prompt = await with_tool_notes(system_prompt(container.settings()), executor)
            result = await execute(prompt)
        except asyncio.CancelledError:
            if not received.cancelled_the_task():
                raise
            result = None
        finally:
            received.armed = False
            renderer.close()
            await executor.aclose()
            await container.gateway().aclose()
            for problem in getattr(executor, "problems", ()):
                print(f"quorum: warning: {printable(redactor.text(problem))}", file=sys.stderr)
    if result is None:
        print(f"quorum: {received.name} received: {say.RUN_CANCELLED}", file=sys.stderr, flush=True)
        return received.exit_code
    return exit_code(result, as_json=as_json)
