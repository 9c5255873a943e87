"""Walking the workspace for grep_search: regular files only, never out through a link, stoppable.

Each directory is read with one ``scandir`` whose entry types cost no extra system call, so named
pipes, sockets and devices are skipped (and counted) without ever being opened; links are followed
only to regular files inside the workspace, and a link loop is counted as unreadable, not raised.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from quorum.infrastructure.tools.blocking import StopFlag
from quorum.infrastructure.tools.workspace import Workspace

SKIPPED_DIRS = frozenset({".git"})


@dataclass
class Skipped:
    """What a search left out, for the note under its results."""

    special: int = 0
    binary: int = 0
    large: int = 0
    unreadable: int = 0
    over_budget: list[str] = field(default_factory=list)

    def notes(self, *, large_limit: str) -> list[str]:
        """One phrase per kind of file left out, in a fixed order."""
        counts = (
            (self.binary, "binary files skipped"),
            (self.special, "special files (named pipes, sockets, devices) skipped"),
            (self.large, f"files over {large_limit} skipped"),
            (self.unreadable, "unreadable files skipped (permissions, link loops, vanished)"),
        )
        return [f"{count} {words}" for count, words in counts if count]


def _linked_regular_file(workspace: Workspace, path: Path, skipped: Skipped) -> bool:
    try:
        real = path.resolve(strict=True)
        mode = os.stat(real).st_mode
    except (OSError, RuntimeError):  # dangling link or link loop
        skipped.unreadable += 1
        return False
    if not workspace.contains(real):
        return False  # leads out: not ours to read, and not worth a note
    if stat.S_ISREG(mode):
        return True
    if not stat.S_ISDIR(mode):
        skipped.special += 1
    return False


def regular_files(workspace: Workspace, base: Path, stop: StopFlag, skipped: Skipped) -> Iterator[Path]:
    """The regular files at or under ``base`` in sorted, top-down order, skipping ``.git``.

    Raises:
        Stopped: the stop flag was set (checked for every directory and file).
    """
    mode = os.stat(base).st_mode
    if not stat.S_ISDIR(mode):
        if stat.S_ISREG(mode):
            yield base
        else:
            skipped.special += 1
        return
    stack = [base]
    while stack:
        stop.check()
        directory = stack.pop()
        try:
            with os.scandir(directory) as listing:
                entries = sorted(listing, key=lambda e: e.name)
        except OSError:
            skipped.unreadable += 1
            continue
        subdirectories: list[Path] = []
        for entry in entries:
            stop.check()
            try:
                if entry.is_dir(follow_symlinks=False):
                    if entry.name not in SKIPPED_DIRS:
                        subdirectories.append(Path(entry.path))
                elif entry.is_file(follow_symlinks=False):
                    yield Path(entry.path)
                elif entry.is_symlink():
                    if _linked_regular_file(workspace, Path(entry.path), skipped):
                        yield Path(entry.path)
                else:
                    skipped.special += 1
            except OSError:
                skipped.unreadable += 1
        stack.extend(reversed(subdirectories))
