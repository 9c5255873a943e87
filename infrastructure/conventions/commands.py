"""Prompt commands: a Markdown file in ``.quorum/commands/`` becomes ``/NAME``.

The file name without ``.md`` is the command (``fix-todo.md`` → ``/fix-todo``, names compared in
lower case); optional YAML front matter sets ``description``, ``model`` (the run's model) and
``plan`` (true: the run is planned first); the body is the prompt, ``$ARGUMENTS`` replaced by
what follows the command (a body without it gets the arguments after a blank line). Directories
are read in order, the first naming a command wins (the workspace's before the user's). A
command named like a built-in slash command (``BUILTIN_COMMANDS``) is refused: it would be
unreachable in one place and shadow the built-in in another.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from quorum.infrastructure.config.workspace import repository_levels
from quorum.infrastructure.conventions.files import Unreadable, read_inside
from quorum.infrastructure.conventions.front_matter import FrontMatterError, one_line, split

BUILTIN_COMMANDS = frozenset(
    {"help", "exit", "model", "tools", "review", "plan", "clear", "resume"}
    | {"usage", "cost", "context", "compact", "log", "undo"}
)
"""The slash commands ``quorum chat`` and the ACP agent answer themselves; no prompt command may take one."""

ARGUMENTS = "$ARGUMENTS"
FILE_LIMIT = 64 * 1024
"""Bytes of one command file at most (a longer one is refused, not cut: a half prompt misleads)."""

NAME = re.compile(r"[a-z0-9][a-z0-9_.-]{0,63}")
INVOCATION = re.compile(r"/([A-Za-z0-9][A-Za-z0-9_.-]*)(?:\s+(.*))?", re.DOTALL)


@dataclass(frozen=True)
class CommandDir:
    """Where commands are looked for: ``directory``, links followed only inside ``root`` (None: anywhere)."""

    directory: Path
    root: Path | None
    source: str


@dataclass(frozen=True)
class PromptCommand:
    """One prompt command.

    Attributes:
        name: the command without its slash, lower case.
        path: its file.
        source: ``workspace`` or ``user``.
        body: the prompt (front matter removed).
        description: front matter ``description`` (one line), else the body's first line.
        model: front matter ``model``: the model its runs use unless the person chose one.
        plan: front matter ``plan``: True runs it in plan mode.
    """

    name: str
    path: Path
    source: str
    body: str
    description: str = ""
    model: str | None = None
    plan: bool = False

    def prompt(self, arguments: str) -> str:
        """The body with ``$ARGUMENTS`` replaced by ``arguments`` (appended when the body has no ``$ARGUMENTS``)."""
        arguments = arguments.strip()
        if ARGUMENTS in self.body:
            return self.body.replace(ARGUMENTS, arguments).strip()
        return f"{self.body.strip()}\n\n{arguments}" if arguments else self.body.strip()


@dataclass(frozen=True)
class PromptCommands:
    """The commands found, by name, and the files refused (``refused``: by name, each with its reason)."""

    commands: dict[str, PromptCommand] = field(default_factory=dict)
    refused: dict[str, str] = field(default_factory=dict)

    @property
    def problems(self) -> tuple[str, ...]:
        """Each refused file with its reason, for ``quorum doctor`` and ``quorum commands list``."""
        return tuple(self.refused.values())

    def get(self, name: str) -> PromptCommand | None:
        """The command named ``name`` (with or without its slash, any case), or None."""
        return self.commands.get(name.lstrip("/").lower())


def invocation(text: str) -> tuple[str, str] | None:
    """``("fix-todo", "app.py")`` for ``/fix-todo app.py``; None when ``text`` does not start with a command.

    As chat reads its slash commands: ``/`` then a letter or digit, the name ending at white space;
    ``/etc/passwd …`` (a path) and ``//x`` are not commands.
    """
    match = INVOCATION.fullmatch(text.strip())
    if match is None:
        return None
    return match.group(1).lower(), (match.group(2) or "").strip()


def command_places(workspace: Path, config_dir: Path | None) -> list[CommandDir]:
    """Where commands are found: the workspace's ``.quorum/commands``, then the user's ``commands``.

    Links in the workspace's are followed only inside its repository (``repository_levels``).
    """
    workspace = workspace.resolve()
    places = [CommandDir(workspace / ".quorum" / "commands", repository_levels(workspace)[-1], "workspace")]
    if config_dir is not None:
        places.append(CommandDir(config_dir / "commands", None, "user"))
    return places


def find_commands(places: Sequence[CommandDir]) -> PromptCommands:
    """The prompt commands in ``places``, the first place naming one winning."""
    found: dict[str, PromptCommand] = {}
    refused: dict[str, str] = {}
    for place in places:
        for path in _markdown_files(place.directory):
            name = path.stem.lower()
            problem = _name_problem(name)
            if problem is None and name in found:
                continue
            command = None
            if problem is None:
                try:
                    command = _read(path, name, place)
                except (Unreadable, FrontMatterError, ValueError) as error:
                    problem = str(error)
            if command is None:
                refused.setdefault(name, f"{path}: {problem}")
            else:
                found[name] = command
    return PromptCommands(dict(sorted(found.items())), refused)


def _markdown_files(directory: Path) -> Iterable[Path]:
    try:
        return sorted(path for path in directory.iterdir() if path.suffix.lower() == ".md")
    except OSError:  # missing, not a directory, unreadable
        return []


def _name_problem(name: str) -> str | None:
    if name in BUILTIN_COMMANDS:
        return f"refused: /{name} is a built-in command; rename the file"
    if not NAME.fullmatch(name):
        return f"refused: {name!r} is not a command name (letters, digits, '-', '_', '.'; 64 at most)"
    return None


def _read(path: Path, name: str, place: CommandDir) -> PromptCommand:
    read = read_inside(path, place.root, FILE_LIMIT)
    if read.cut:
        raise ValueError(f"longer than {FILE_LIMIT // 1024} KiB; not read")
    meta, body = split(read.text)
    plan = meta.get("plan", False)
    if not isinstance(plan, bool):
        raise ValueError(f"front matter 'plan' must be true or false, not {plan!r}")
    model = meta.get("model")
    if model is not None and not (isinstance(model, str) and model.strip()):
        raise ValueError(f"front matter 'model' must be a model name, not {model!r}")
    first = next((line for line in body.splitlines() if line.strip()), "")
    description = one_line(meta.get("description") or first.lstrip("# "), 200)
    return PromptCommand(name, path, place.source, body, description, model.strip() if model else None, plan)
