"""Search tools: glob_search and grep_search. Blocking; the source runs them in daemon threads.

Both stay inside the workspace (symlinks leading out are skipped), skip ``.git`` and special files
(named pipes, sockets, devices: never opened), stop at a result limit with a note, and check the
call's stop flag as they go, so a search of a large or hostile tree answers quickly or is
abandoned the moment its call is cancelled. Patterns are RE2 (see ``patterns``).
"""

from __future__ import annotations

import fnmatch
import heapq
import os
import stat
from collections.abc import Iterator
from pathlib import Path, PurePosixPath
from typing import Any

from quorum.domain.errors import ToolRefusedError
from quorum.infrastructure.tools.blocking import NEVER, StopFlag
from quorum.infrastructure.tools.files.grep_scan import as_searchable, matching_lines
from quorum.infrastructure.tools.files.next_step import missing
from quorum.infrastructure.tools.files.operations import BINARY_SNIFF_BYTES, looks_binary
from quorum.infrastructure.tools.files.patterns import Pattern, compile_pattern
from quorum.infrastructure.tools.files.regex_fallback import FILE_BUDGET_SECONDS, FallbackSearch
from quorum.infrastructure.tools.files.regular import NotRegularFileError, open_regular
from quorum.infrastructure.tools.files.walk import SKIPPED_DIRS, Skipped, regular_files
from quorum.infrastructure.tools.workspace import Workspace

GLOB_LIMIT = 1000
GREP_DEFAULT_RESULTS = 200
GREP_MAX_FILE_BYTES = 5_000_000
LINE_CHARS = 300


def _base_dir(workspace: Workspace, raw: Any) -> Path:
    base = workspace.resolve(raw)
    if not base.exists():
        raise ToolRefusedError(missing(workspace, raw, "path"))
    return base


def glob_search(workspace: Workspace, arguments: dict[str, Any], stop: StopFlag = NEVER) -> str:
    """Paths under ``path`` (default the workspace) matching ``pattern`` (``**`` for any depth).

    Shows the first ``GLOB_LIMIT`` paths in sorted order (the same answer every time, kept in a
    bounded heap so memory does not grow with the tree) and says how many matched in all.
    """
    pattern = arguments.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise ToolRefusedError("pattern must be a non-empty glob such as '**/*.py'")
    pure = PurePosixPath(pattern)
    if pure.is_absolute() or ".." in pure.parts:
        raise ToolRefusedError(
            f"pattern {pattern!r} must be relative and must not use '..'; set path to search elsewhere"
        )
    base = _base_dir(workspace, arguments.get("path"))
    if not base.is_dir():
        raise ToolRefusedError(f"{arguments.get('path')!r} is not a directory; give a directory, or use read_file")
    counts = {"total": 0, "special": 0}

    def matches() -> Iterator[str]:
        for match in base.glob(pattern):
            stop.check()
            if SKIPPED_DIRS.intersection(match.relative_to(base).parts) or not workspace.contains(match):
                continue
            try:
                mode = match.stat().st_mode
            except (OSError, RuntimeError):  # vanished, or a link loop
                continue
            if not (stat.S_ISREG(mode) or stat.S_ISDIR(mode)):
                counts["special"] += 1
                continue
            counts["total"] += 1
            yield workspace.relative(match) + ("/" if stat.S_ISDIR(mode) else "")

    found = heapq.nsmallest(GLOB_LIMIT, matches())
    total, special = counts["total"], counts["special"]
    if not found:
        skipped = f" ({special} special files such as named pipes skipped)" if special else ""
        return f"no paths match {pattern!r} under {workspace.relative(base)}{skipped}"
    notes = [f"showed the first {GLOB_LIMIT} of {total} matches; narrow the pattern"] if total > GLOB_LIMIT else []
    if special:
        notes.append(f"{special} special files (named pipes, sockets, devices) skipped")
    return "\n".join(found) + "".join(f"\n[{note}]" for note in notes)


def _glob_matches(workspace: Workspace, path: Path, pattern: str) -> bool:
    rel = workspace.relative(path)
    return fnmatch.fnmatchcase(rel, pattern) if "/" in pattern else fnmatch.fnmatchcase(path.name, pattern)


def _file_hits(
    pattern: Pattern,
    fallback: FallbackSearch | None,
    path: Path,
    shown: str,
    limit: int,
    stop: StopFlag,
    skipped: Skipped,
) -> list[tuple[int, str]]:
    with open_regular(path, shown, "grep_search") as handle:
        if os.fstat(handle.fileno()).st_size > GREP_MAX_FILE_BYTES:
            skipped.large += 1
            return []
        # Bounded even if the file grows while we read it.
        data = handle.read(GREP_MAX_FILE_BYTES)
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        skipped.binary += 1
        return []
    if fallback is not None:
        hits = fallback.search(path, limit)
        if hits is None:
            skipped.over_budget.append(shown)
            return []
        return hits
    return [
        (number, line[: LINE_CHARS * 4].decode("utf-8", errors="replace")[:LINE_CHARS])
        for number, line in matching_lines(pattern, as_searchable(data), limit, stop)
    ]


def grep_search(workspace: Workspace, arguments: dict[str, Any], stop: StopFlag = NEVER) -> str:
    """Lines matching the RE2 pattern ``pattern``, as ``path:line: text``.

    Searches ``path`` (a file or directory, default the workspace), only files whose name (or
    relative path, when ``glob`` contains ``/``) matches ``glob``; skips binary files, special
    files, files over 5 MB and ``.git``; stops after ``max_results`` lines (default 200). A
    pattern only Python's ``re`` accepts is searched out of process with a time budget per file.
    """
    raw_pattern = arguments.get("pattern")
    if not isinstance(raw_pattern, str) or not raw_pattern:
        raise ToolRefusedError("pattern must be a non-empty regular expression")
    pattern = compile_pattern(raw_pattern)
    glob = arguments.get("glob")
    max_results = arguments.get("max_results", GREP_DEFAULT_RESULTS)
    if isinstance(max_results, bool) or not isinstance(max_results, int) or max_results < 1:
        raise ToolRefusedError(f"max_results must be a positive integer, got {max_results!r}; leave it out for 200")
    base = _base_dir(workspace, arguments.get("path"))
    skipped = Skipped()
    fallback = None
    if pattern.engine == "python":
        fallback = FallbackSearch(
            raw_pattern, workspace.root, stop, line_chars=LINE_CHARS, max_bytes=GREP_MAX_FILE_BYTES
        )
    hits: list[str] = []
    try:
        for path in regular_files(workspace, base, stop, skipped):
            if glob and not _glob_matches(workspace, path, str(glob)):
                continue
            shown = workspace.relative(path)
            try:
                found = _file_hits(pattern, fallback, path, shown, max_results - len(hits), stop, skipped)
            except NotRegularFileError:
                skipped.special += 1  # swapped for a pipe after the walk saw it
                continue
            except OSError:
                skipped.unreadable += 1  # permissions, vanished: counted, not the model's concern
                continue
            hits.extend(f"{shown}:{number}: {text}" for number, text in found)
            if len(hits) >= max_results:
                break
    finally:
        if fallback is not None:
            fallback.close()
    return _report(pattern, hits, max_results, skipped, workspace.relative(base), glob)


def _report(pattern: Pattern, hits: list[str], max_results: int, skipped: Skipped, where: str, glob: Any) -> str:
    notes = skipped.notes(large_limit="5 MB")
    if pattern.engine == "python":
        notes.append(f"RE2 cannot run this pattern ({pattern.why_fallback}); searched with Python's re instead")
    if skipped.over_budget:
        names = ", ".join(skipped.over_budget[:5]) + (" …" if len(skipped.over_budget) > 5 else "")
        notes.append(
            f"the {FILE_BUDGET_SECONDS:g} s time budget per file cut the search of "
            f"{len(skipped.over_budget)} files ({names}); simplify the pattern"
        )
    if not hits:
        text = f"no matches for {pattern.source!r} in {where}" + (f" (glob {glob!r})" if glob else "")
        return text + "".join(f"; {note}" for note in notes)
    if len(hits) >= max_results:
        notes.insert(0, f"stopped at {max_results} matches")
    return "\n".join(hits) + "".join(f"\n[{note}]" for note in notes)
