"""Project instructions: the AGENTS.md files from the repository root down to the workspace.

The files other agents read (Codex, Claude Code, Cursor, Copilot, Zed): ``AGENTS.md`` in each
directory from the repository root (the nearest parent holding ``.git``, else the workspace
itself; the walk of ``find_workspace``) down to the workspace, root first, and ``CLAUDE.md`` in
a directory without an ``AGENTS.md``. At most ``LIMIT`` bytes in all; the file that passes it is
cut and the later ones left out, with a note saying so. Read as hostile (``files.read_inside``):
a link out of the repository, a FIFO or a device is not read, and ``skipped`` says why.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from quorum.infrastructure.config.workspace import repository_levels
from quorum.infrastructure.conventions.files import Unreadable, read_inside

FILE_NAMES = ("AGENTS.md", "CLAUDE.md")
"""Read in each directory of the walk: the first that exists."""

LIMIT = 32 * 1024
"""Bytes of project instructions at most, all files together."""

HEADING = "# Project instructions"


@dataclass(frozen=True)
class InstructionFile:
    """One file read: ``shown`` is its path relative to the repository root (``app/AGENTS.md``)."""

    path: Path
    shown: str
    text: str


@dataclass(frozen=True)
class ProjectInstructions:
    """The instruction files read for a workspace, root first.

    Attributes:
        files: the files read (the last one cut when ``truncated``).
        truncated: the ``LIMIT`` was reached: the last file is cut and the ones after it left out.
        skipped: files present but not read, each with the reason (a link outside, a FIFO).
    """

    files: tuple[InstructionFile, ...] = ()
    truncated: bool = False
    skipped: tuple[str, ...] = ()

    @property
    def names(self) -> tuple[str, ...]:
        """The files read, as shown (relative to the repository root)."""
        return tuple(file.shown for file in self.files)

    def prompt_section(self) -> str:
        """The system prompt's section: a heading naming each file, then its text; empty without files."""
        if not self.files:
            return ""
        parts = [
            f"{HEADING}\n\nThe repository's instruction files, root first (a nearer file refines the ones before it)."
        ]
        parts += [f"## {file.shown}\n\n{file.text.strip()}" for file in self.files]
        if self.truncated:
            parts.append(f"[Project instructions cut at {LIMIT // 1024} KiB: the rest was left out.]")
        return "\n\n".join(parts)


def find_instructions(workspace: Path, limit: int = LIMIT) -> ProjectInstructions:
    """The project instructions of ``workspace`` (see the module docstring)."""
    levels = list(reversed(repository_levels(workspace)))
    root = levels[0]
    files: list[InstructionFile] = []
    skipped: list[str] = []
    budget = limit
    for level in levels:
        path = next((level / name for name in FILE_NAMES if os.path.lexists(level / name)), None)
        if path is None:
            continue
        shown = path.relative_to(root).as_posix()
        if budget <= 0:
            return ProjectInstructions(tuple(files), True, tuple(skipped))
        try:
            read = read_inside(path, root, budget)
        except Unreadable as error:
            skipped.append(f"{shown}: {error}")
            continue
        files.append(InstructionFile(path, shown, read.text))
        budget -= read.size
        if read.cut:
            return ProjectInstructions(tuple(files), True, tuple(skipped))
    return ProjectInstructions(tuple(files), False, tuple(skipped))
