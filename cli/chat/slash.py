"""The slash commands of ``quorum chat``: names, arguments, help, parsing and completion. Pure."""

from __future__ import annotations

import difflib
from collections.abc import Sequence
from dataclasses import dataclass

REVIEW_MODES = ("interactive", "auto_approve", "auto_reject")
"""What ``/review`` accepts: the ``[review] hil_mode`` values a session can switch to."""


@dataclass(frozen=True)
class SlashCommand:
    name: str
    """With its slash: ``/model``."""
    arguments: str
    """As shown in ``/help``: ``[M]``, ``RUN_ID``; empty when it takes none."""
    summary: str


COMMANDS: tuple[SlashCommand, ...] = (
    SlashCommand("/help", "", "this list"),
    SlashCommand("/exit", "", "leave the chat (also Ctrl+D, or Ctrl+C twice on an empty line)"),
    SlashCommand("/model", "[M]", "show the model, or switch to M (the conversation is kept)"),
    SlashCommand("/tools", "", "the tools offered to the model, with their risk"),
    SlashCommand("/review", "[MODE]", "show or set who approves high-risk calls: " + ", ".join(REVIEW_MODES)),
    SlashCommand("/plan", "[TASK]", "plan mode for the next message (or TASK): a reviewed plan before any change"),
    SlashCommand("/clear", "", "start a new conversation"),
    SlashCommand("/resume", "RUN_ID", "continue the conversation of a recorded run (any unique prefix)"),
    SlashCommand("/usage", "", "tokens and cost of this session, reviewers included"),
    SlashCommand("/cost", "", "what this session spent, against its cap (quorum chat --max-cost USD)"),
    SlashCommand("/context", "", "the tokens the conversation holds, against the model's window"),
    SlashCommand("/compact", "", "compact the conversation now (old tool outputs, then a summary)"),
    SlashCommand("/log", "", "the run ids of this conversation (see them with quorum logs show ID)"),
    SlashCommand("/undo", "", "undo what the last message's run changed in the workspace (shows it, then asks)"),
)

_BY_NAME = {command.name: command for command in COMMANDS}
FULL_NAME_ONLY = frozenset({"/undo"})
"""Commands that change the workspace: typed in full, never by a prefix (``/u`` stays ``/usage``)."""


@dataclass(frozen=True)
class SlashLine:
    """A typed slash command: its name as typed (``/mod``) and the rest of the line, stripped."""

    name: str
    argument: str


def parse(line: str) -> SlashLine | None:
    """The slash command ``line`` is, or None when it is a message.

    A line is a command when it starts with ``/`` followed by a letter: ``/model x`` is one,
    ``/etc/passwd is odd`` is not (a path), and neither is ``//`` or ``/ spaced``.
    """
    text = line.strip()
    if len(text) < 2 or text[0] != "/" or not text[1].isalpha():
        return None
    name, _, rest = text.partition(" ")
    if "/" in name[1:]:
        return None
    return SlashLine(name.lower(), rest.strip())


def find(name: str) -> SlashCommand | None:
    """The command ``name`` names exactly, or by a unique prefix (``/u`` → ``/usage``; not ``FULL_NAME_ONLY``)."""
    if name in _BY_NAME:
        return _BY_NAME[name]
    matches = [c for c in COMMANDS if c.name.startswith(name) and c.name not in FULL_NAME_ONLY]
    return matches[0] if len(matches) == 1 else None


def unknown_message(name: str) -> str:
    """What to say for a command that is not one, with the closest names."""
    close = difflib.get_close_matches(name, [c.name for c in COMMANDS], n=2, cutoff=0.5)
    prefixed = [c.name for c in COMMANDS if c.name.startswith(name)]
    candidates = prefixed if len(prefixed) > 1 else close
    hint = f" (did you mean {' or '.join(candidates)}?)" if candidates else ""
    return f"unknown command {name}{hint}; /help lists the commands"


def help_text(prompt_commands: Sequence[tuple[str, str]] = ()) -> str:
    """``/help``'s text: one line per command, the prompt commands (``(name, description)``), then the keys."""
    width = max(len(f"{c.name} {c.arguments}".strip()) for c in COMMANDS)
    lines = [f"  {f'{c.name} {c.arguments}'.strip():<{width}}  {c.summary}" for c in COMMANDS]
    if prompt_commands:
        lines += ["", "  Prompt commands (.quorum/commands/, the user's commands/):"]
        named = [(f"/{name} [ARGS]", description) for name, description in prompt_commands]
        wide = max(len(call) for call, _ in named)
        lines += [f"  {call:<{wide}}  {description}" for call, description in named]
    lines.append("")
    lines.append("  Enter sends · Alt+Enter (or Esc then Enter) inserts a newline · Ctrl+C cancels the running turn")
    return "\n".join(lines)


def completions(text: str, models: list[str]) -> list[str]:
    """What may complete ``text`` (the input up to the cursor): whole words that replace its last word."""
    if not text.startswith("/"):
        return []
    name, space, argument = text.partition(" ")
    if not space:
        return [c.name for c in COMMANDS if c.name.startswith(name.lower())]
    command = find(name.lower())
    if command is None or " " in argument:
        return []
    if command.name == "/review":
        return [mode for mode in REVIEW_MODES if mode.startswith(argument)]
    if command.name == "/model":
        return [model for model in models if model.startswith(argument)]
    return []
