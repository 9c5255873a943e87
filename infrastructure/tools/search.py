"""Search tools: glob_search and grep_search. Blocking; the source runs them in threads.

Both stay inside the workspace (symlinks leading out are skipped), skip ``.git``, and stop at a
result limit with a note, so a search of a large tree answers quickly and within the output cap.
"""

from __future__ import annotations

import fnmatch
import os
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from quorum.domain.errors import ToolRefusedError
from quorum.infrastructure.tools.files import BINARY_SNIFF_BYTES, looks_binary
from quorum.infrastructure.tools.workspace import Workspace

SKIPPED_DIRS = frozenset({".git"})
GLOB_LIMIT = 1000
GREP_DEFAULT_RESULTS = 200
GREP_MAX_FILE_BYTES = 5_000_000
LINE_CHARS = 300


def _base_dir(workspace: Workspace, raw: Any) -> Path:
    base = workspace.resolve(raw)
    if not base.exists():
        raise ToolRefusedError(f"no such directory: {raw!r}")
    return base


def glob_search(workspace: Workspace, arguments: dict[str, Any]) -> str:
    """Paths under ``path`` (default the workspace) matching ``pattern`` (``**`` for any depth)."""
    pattern = arguments.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise ToolRefusedError("pattern must be a non-empty glob such as '**/*.py'")
    pure = PurePosixPath(pattern)
    if pure.is_absolute() or ".." in pure.parts:
        raise ToolRefusedError(f"pattern {pattern!r} must be relative and must not use '..'")
    base = _base_dir(workspace, arguments.get("path"))
    if not base.is_dir():
        raise ToolRefusedError(f"{arguments.get('path')!r} is not a directory")
    found: list[str] = []
    more = False
    for match in base.glob(pattern):
        if SKIPPED_DIRS.intersection(match.relative_to(base).parts) or not workspace.contains(match):
            continue
        if len(found) >= GLOB_LIMIT:
            more = True
            break
        found.append(workspace.relative(match) + ("/" if match.is_dir() else ""))
    if not found:
        return f"no paths match {pattern!r} under {workspace.relative(base)}"
    found.sort()
    note = f"\n[stopped at {GLOB_LIMIT} matches; narrow the pattern]" if more else ""
    return "\n".join(found) + note


def _walk_files(workspace: Workspace, base: Path) -> Iterator[Path]:
    if base.is_file():
        yield base
        return
    for dirpath, dirnames, filenames in os.walk(base, followlinks=False):
        dirnames[:] = sorted(d for d in dirnames if d not in SKIPPED_DIRS)
        for name in sorted(filenames):
            path = Path(dirpath) / name
            if path.is_symlink() and not workspace.contains(path):
                continue
            yield path


def _glob_matches(workspace: Workspace, path: Path, pattern: str) -> bool:
    rel = workspace.relative(path)
    return fnmatch.fnmatchcase(rel, pattern) if "/" in pattern else fnmatch.fnmatchcase(path.name, pattern)


def grep_search(workspace: Workspace, arguments: dict[str, Any]) -> str:
    """Lines matching the regular expression ``pattern``, as ``path:line: text``.

    Searches ``path`` (a file or directory, default the workspace), only files whose name (or
    relative path, when ``glob`` contains ``/``) matches ``glob``; skips binary files, files over
    5 MB and ``.git``; stops after ``max_results`` lines (default 200).
    """
    pattern = arguments.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise ToolRefusedError("pattern must be a non-empty regular expression")
    try:
        regex = re.compile(pattern)
    except re.error as error:
        raise ToolRefusedError(f"pattern {pattern!r} is not a valid regular expression: {error}") from error
    glob = arguments.get("glob")
    max_results = arguments.get("max_results", GREP_DEFAULT_RESULTS)
    if isinstance(max_results, bool) or not isinstance(max_results, int) or max_results < 1:
        raise ToolRefusedError(f"max_results must be a positive integer, got {max_results!r}")
    base = _base_dir(workspace, arguments.get("path"))
    hits: list[str] = []
    skipped_binary = 0
    for path in _walk_files(workspace, base):
        if glob and not _glob_matches(workspace, path, str(glob)):
            continue
        try:
            if path.stat().st_size > GREP_MAX_FILE_BYTES:
                continue
            with path.open("rb") as handle:
                if looks_binary(handle.read(BINARY_SNIFF_BYTES)):
                    skipped_binary += 1
                    continue
                handle.seek(0)
                for number, raw in enumerate(handle, 1):
                    line = raw.decode("utf-8", errors="replace").rstrip("\r\n")
                    if regex.search(line):
                        hits.append(f"{workspace.relative(path)}:{number}: {line[:LINE_CHARS]}")
                        if len(hits) >= max_results:
                            return "\n".join(hits) + f"\n[stopped at {max_results} matches]"
        except OSError:
            continue  # unreadable files (permissions, vanished) are not the model's concern
    if not hits:
        where = workspace.relative(base)
        skipped = f"; {skipped_binary} binary files skipped" if skipped_binary else ""
        return f"no matches for {pattern!r} in {where}" + (f" (glob {glob!r})" if glob else "") + skipped
    return "\n".join(hits)
