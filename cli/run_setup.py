"""What ``run``, ``ask``, ``chat`` and ``approve`` share: how a run is shown, who is asked, how it ends."""

from __future__ import annotations

import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from quorum.application import model_wording as say
from quorum.cli.errors import (
    EXIT_AWAITING_APPROVAL,
    EXIT_INTERRUPTED,
    EXIT_OK,
    EXIT_RUN_FAILURE,
    EXIT_STOPPED_EARLY,
)

if TYPE_CHECKING:
    from quorum.composition.runtime import Runtime


@dataclass(frozen=True)
class Display:
    """How a run is shown: ``-q``/``-v``, ``--color``, the terminal a review may ask on.

    ``document``: stdout gets only the run's checked JSON document (``--output-schema``).
    """

    verbosity: int = 0
    color: str = "auto"
    tty_fd: int | None = None
    document: bool = False


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
    kind = HumanRenderer
    if display.document:
        from quorum.cli.render.document import DocumentRenderer

        kind = DocumentRenderer
    return kind(sys.stdout, sys.stderr, verbosity=display.verbosity, color=color, live=live)


def say_instructions(renderer: Any, container: Any) -> None:
    """Let a human renderer's first line name the project instructions (AGENTS.md) the run reads."""
    if hasattr(renderer, "instructions"):
        renderer.instructions = container.conventions().instructions.names


def terminal_prompts(renderer: Any, tty_fd: int | None, settings: Any) -> tuple[Any, Any]:
    """Who asks on the terminal (``tty_fd`` when stdin is a pipe) beside the renderer.

    Returns the ``HumanPrompt`` of the review (a run order's ``human``) and the ``LinePrompt``
    answering MCP servers' questions (the runtime's ``line_prompt``).
    """
    from quorum.cli.render.prompt import RendererLinePrompt, RendererPrompt
    from quorum.composition.paths import workspace_of
    from quorum.infrastructure.review.terminal import TerminalPrompt
    from quorum.infrastructure.tools.workspace import Workspace

    terminal = TerminalPrompt(tty_fd, workspace=Workspace(workspace_of(settings)))
    return RendererPrompt(terminal, renderer), RendererLinePrompt(terminal, renderer)


def continuation_of(container: Any, run_id: str | None) -> Any:
    """The recorded conversation to continue (``--continue``: the last run)."""
    from quorum.application.history import continuation
    from quorum.domain.errors import UsageError

    store = container.run_store()
    if store is None:
        raise UsageError("--continue/--resume need the run log, which is disabled ([storage] enabled = false)")
    return continuation(store, run_id)


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
    runtime: Runtime,
    renderer: Any,
    execute: Callable[[], Awaitable[Any]],
    *,
    low_risk_only: bool = False,
    as_json: bool = False,
) -> int:
    """Run one run to its end in this process inside ``runtime``; the command's exit code.

    ``execute()`` runs it through the run service (``RunService.run`` or ``decide``), returning
    its ``RunResult``.
    Around it: the sandbox requirement, SIGTERM/SIGHUP ending the run as Ctrl+C does (exit
    ``128 + signal``), and the clean-up (the renderer, then the runtime: tool sources, provider
    clients, the run store; then the tool sources' warnings).
    """
    import asyncio

    from quorum.cli.signals import signals_cancel_current_task
    from quorum.infrastructure.terminal_text import printable

    with signals_cancel_current_task() as received:
        try:
            runtime.open()
            await runtime.require_sandbox(low_risk_only)
            result = await execute()
        except asyncio.CancelledError:
            if not received.cancelled_the_task():
                raise
            result = None
        finally:  # not ``async with runtime``: it closes after the cancellation is taken back
            received.armed = False
            renderer.close()
            await runtime.aclose()
            for problem in runtime.problems():
                print(f"quorum: warning: {printable(problem)}", file=sys.stderr)
    if result is None:
        print(f"quorum: {received.name} received: {say.RUN_CANCELLED}", file=sys.stderr, flush=True)
        return received.exit_code
    return exit_code(result, as_json=as_json)
