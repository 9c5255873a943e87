"""What a model should do after a file tool failed: the closest existing path to a missing one.

A weak model that guesses a path (``config/database.conf``) and is told only "no such file"
returns the error as its answer. Told the closest existing path and the directory to list, it
takes the next step. The search is bounded: at most ``MAX_ENTRIES`` entries of the workspace,
never below ``.git`` or the usual dependency folders.
"""

from __future__ import annotations

import difflib
import os
from pathlib import Path, PurePosixPath

from quorum.infrastructure.tools.workspace import Workspace, printable

MAX_ENTRIES = 5000
"""Most paths looked at for a suggestion: a large tree costs one bounded walk, not a full scan."""

PASSED_OVER = frozenset({".git", "node_modules", ".venv", "venv", "__pycache__", ".mypy_cache", ".tox"})


def missing(workspace: Workspace, raw: object, what: str = "file") -> str:
    """The message for a ``what`` (``file``, ``directory`` or ``path``: either) that does not exist, with the next step.

    Names the closest existing path of that kind when one is close enough, and the nearest existing
    directory to list.
    """
    wanted = str(raw)
    closest = closest_path(workspace, wanted, directories={"file": False, "directory": True}.get(what))
    around = nearest_directory(workspace, wanted)
    step = f"list_dir {around!r} to see what exists" if around != "." else "list_dir to see what exists"
    if closest is not None:
        return f"no such {what}: {raw!r}; the closest existing one is {closest!r} ({step})"
    return f"no such {what}: {raw!r}; {step}, or glob_search '**/{PurePosixPath(wanted).name or '*'}' to find it"


def closest_path(workspace: Workspace, wanted: str, *, directories: bool | None = False) -> str | None:
    """The existing path (relative to the workspace) most like ``wanted``: same name first, then spelling.

    ``directories``: look among directories (True), files (False) or both (None).
    """
    target = _relative(workspace, wanted)
    candidates = _paths(workspace.root, directories)
    name = PurePosixPath(target).name
    same_name = [path for path in candidates if PurePosixPath(path).name == name]
    if same_name:
        return min(same_name, key=lambda path: (-difflib.SequenceMatcher(None, path, target).ratio(), path))
    close = difflib.get_close_matches(target, candidates, n=1, cutoff=0.6)
    return close[0] if close else None


def nearest_directory(workspace: Workspace, wanted: str) -> str:
    """The deepest existing directory on the way to ``wanted``, relative to the workspace (``.`` for the root)."""
    parts = PurePosixPath(_relative(workspace, wanted)).parts[:-1]
    deepest = "."
    current = workspace.root
    for part in parts:
        current = current / part
        if not current.is_dir() or current.is_symlink():
            break
        deepest = str(PurePosixPath(deepest, part)) if deepest != "." else part
    return deepest


def _relative(workspace: Workspace, wanted: str) -> str:
    path = Path(os.path.normpath(wanted))
    if path.is_absolute():
        try:
            path = path.relative_to(workspace.root)
        except ValueError:
            return str(path)
    return str(PurePosixPath(*path.parts)) if path.parts else "."


def _paths(root: Path, directories: bool | None) -> list[str]:
    """Workspace paths (files, or directories), breadth first, at most ``MAX_ENTRIES`` looked at."""
    found: list[str] = []
    queue = [root]
    seen = 0
    while queue and seen < MAX_ENTRIES:
        folder = queue.pop(0)
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except OSError:
            continue
        for entry in entries:
            seen += 1
            if seen > MAX_ENTRIES:
                break
            is_dir = entry.is_dir(follow_symlinks=False)
            relative = printable(os.path.relpath(entry.path, root))
            if is_dir and entry.name not in PASSED_OVER:
                queue.append(Path(entry.path))
            if directories in (None, is_dir) and entry.name not in PASSED_OVER:
                found.append(relative)
    return found
