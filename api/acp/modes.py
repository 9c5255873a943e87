"""Session modes (the ``[review] hil_mode`` a person switches in the editor, and plan mode) and the slash commands.

A mode decides what the human step does with a call that reaches it; policy rules and the panel
run first whatever the mode, and a "reject always" answer still rejects. ``defer`` is not a mode
here: in an editor the person is present, so a configured ``defer`` starts the session in
``interactive``. ``plan`` is ``interactive`` plus plan mode for every prompt: the model plans
read-only, the plan is asked in the editor, then it is carried out with calls asked as in
``interactive`` (``/plan`` does the same for the next prompt only; decision 160's addendum).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

Mode = Literal["interactive", "auto_approve", "auto_reject", "plan"]
"""A session mode: the ``hil_mode`` of its runs' human step, or ``plan`` (``interactive``, planning first)."""

MODES: tuple[tuple[Mode, str, str], ...] = (
    ("interactive", "Ask every time", "Calls that need a person are asked here (allow or reject, once or always)."),
    ("auto_approve", "Auto-approve", "Calls that need a person are approved without asking (rules, panel still run)."),
    ("auto_reject", "Reject without asking", "Calls that need a person are rejected without asking."),
    (
        "plan",
        "Plan first",
        "Each prompt is planned first (read-only); you approve the plan here, then calls are asked as usual.",
    ),
)
MODE_IDS: tuple[Mode, ...] = tuple(mode_id for mode_id, _, _ in MODES)

COMMANDS: tuple[tuple[str, str, str | None], ...] = (
    ("tools", "List the tools the model may call, with their risk", None),
    ("review", "Say how calls are reviewed in this session (rules, panel, mode, always answers)", None),
    ("usage", "Tokens and cost of this session's runs", None),
    ("model", "Show or switch the model of this session", "provider:model"),
    ("plan", "Plan mode for the next prompt (or TASK now): a plan you approve before any change", "task"),
)


def mode_named(name: str) -> Mode | None:
    """The mode ``name`` names, or None."""
    return next((mode for mode in MODE_IDS if mode == name), None)


def hil_mode_of(mode: Mode) -> Literal["interactive", "auto_approve", "auto_reject"]:
    """The ``hil_mode`` of a session mode's runs (``plan`` asks as ``interactive`` does)."""
    return "interactive" if mode == "plan" else mode


def initial_mode(configured: str) -> Mode:
    """The session's first mode: the configured ``hil_mode``, ``interactive`` for ``defer``."""
    return mode_named(configured) or "interactive"


def mode_state(current: str) -> Any:
    """The ``modes`` of ``session/new``/``session/load``'s response."""
    from acp.schema import SessionMode, SessionModeState

    modes = [SessionMode(id=mode_id, name=name, description=text) for mode_id, name, text in MODES]
    return SessionModeState(current_mode_id=current, available_modes=modes)


def commands_update(prompt_commands: Sequence[tuple[str, str]] = ()) -> Any:
    """The ``available_commands_update`` announcing the slash commands, then the prompt commands.

    ``prompt_commands``: ``(name, description)`` of the workspace's and the user's prompt commands
    (``.quorum/commands/``), each taking what follows it as its arguments.
    """
    from acp import helpers
    from acp.schema import AvailableCommand, AvailableCommandInput, UnstructuredCommandInput

    listed = [*COMMANDS, *((name, text or f"Prompt command /{name}", "arguments") for name, text in prompt_commands)]
    commands = [
        AvailableCommand(
            name=name,
            description=text,
            input=AvailableCommandInput(root=UnstructuredCommandInput(hint=hint)) if hint else None,
        )
        for name, text, hint in listed
    ]
    return helpers.update_available_commands(commands)


def parse_command(text: str) -> tuple[str, str] | None:
    """``("model", "openai:gpt-4.1")`` for ``/model openai:gpt-4.1``; None when ``text`` is no known command."""
    stripped = text.strip()
    if not stripped.startswith("/"):
        return None
    name, _, rest = stripped[1:].partition(" ")
    if name not in {command for command, _, _ in COMMANDS}:
        return None
    return name, rest.strip()
