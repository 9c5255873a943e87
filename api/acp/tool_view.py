"""A tool call as an editor shows it: a title, an ACP tool kind, the files it touches, its diff.

ACP clients draw each call from a ``title`` and a ``kind`` (read, edit, execute, search, fetch,
other) and, for a file write or edit, from a ``diff`` content item (the absolute path, the text
before and after). The diff is computed when the call is announced, before it runs, from the file
in the session's workspace: only paths inside it are read (``Workspace.resolve``), only regular
files, and at most ``MAX_READ_BYTES``; otherwise the call has no diff and shows its arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from quorum.domain.errors import ToolRefusedError
from quorum.infrastructure.tools.workspace import Workspace

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]

MAX_READ_BYTES = 1_000_000
"""Larger files get no diff (reading and sending them would stall the editor)."""
MAX_TITLE = 120
"""Characters of a title before it is cut (a command line can be long)."""

_KINDS: dict[str, ToolKind] = {
    "read_file": "read",
    "list_dir": "read",
    "grep_search": "search",
    "glob_search": "search",
    "write_file": "edit",
    "edit_file": "edit",
    "run_command": "execute",
    "propose_plan": "switch_mode",  # plan mode: an approved plan ends the planning phase
}
_FETCHERS = frozenset({"fetch", "fetch_url", "web_fetch", "http_get"})


@dataclass(frozen=True)
class FileDiff:
    """What a write or an edit will change: ``old`` is None for a new file."""

    path: str
    old: str | None
    new: str


def kind_of(name: str) -> ToolKind:
    """The ACP kind of the tool ``name`` (an MCP tool ``mcp__server__tool`` is judged by its own name)."""
    if name in _KINDS:
        return _KINDS[name]
    own = name.rsplit("__", 1)[-1].lower()
    return "fetch" if own in _FETCHERS else "other"


def title_of(name: str, arguments: Mapping[str, Any]) -> str:
    """A one-line title: ``Read docs/a.md``, ``Run make test``, ``time: get_current_time``."""
    path = arguments.get("path")
    shown_path = path if isinstance(path, str) and path else "."
    titles = {
        "read_file": f"Read {shown_path}",
        "list_dir": f"List {shown_path}",
        "write_file": f"Write {shown_path}",
        "edit_file": f"Edit {shown_path}",
        "grep_search": f"Search {arguments.get('pattern', '')!s} in {shown_path}",
        "glob_search": f"Find {arguments.get('pattern', '')!s} in {shown_path}",
        "run_command": f"Run {arguments.get('command', '')!s}",
    }
    title = titles.get(name)
    if title is None:
        parts = name.split("__")
        title = f"{parts[1]}: {'__'.join(parts[2:])}" if len(parts) >= 3 and parts[0] == "mcp" else name
    title = " ".join(title.split())  # one line: a command's newlines would break the client's row
    return title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 1] + "…"


def file_path(name: str, arguments: Mapping[str, Any], workspace: Workspace) -> Path | None:
    """The real path a file tool's call names inside the workspace, or None (not a file tool, or outside)."""
    if kind_of(name) not in ("read", "edit"):
        return None
    raw = arguments.get("path")
    if name == "list_dir" and not raw:
        return workspace.root
    if not isinstance(raw, str) or not raw:
        return None
    try:
        return workspace.resolve(raw)
    except ToolRefusedError:
        return None


def diff_of(name: str, arguments: Mapping[str, Any], workspace: Workspace) -> FileDiff | None:
    """The change ``write_file``/``edit_file`` will make, or None when none can be shown."""
    if name not in ("write_file", "edit_file"):
        return None
    path = file_path(name, arguments, workspace)
    if path is None:
        return None
    try:
        old = _current_text(path)
    except _Unreadable:
        return None
    if name == "write_file":
        content = arguments.get("content")
        return FileDiff(str(path), old, content) if isinstance(content, str) else None
    before, after = arguments.get("old_text"), arguments.get("new_text")
    if old is None or not isinstance(before, str) or not isinstance(after, str) or not before:
        return None
    if old.count(before) != 1:
        return None  # the edit will fail: the result says why
    return FileDiff(str(path), old, old.replace(before, after, 1))


class _Unreadable(Exception):
    """The file must not or cannot be shown (not a regular file, too large, not text)."""


def _current_text(path: Path) -> str | None:
    """The file's text, None when it does not exist.

    Raises:
        _Unreadable: a directory, FIFO or device; larger than ``MAX_READ_BYTES``; not UTF-8.
    """
    if not path.exists():
        return None
    if not path.is_file() or path.stat().st_size > MAX_READ_BYTES:
        raise _Unreadable(str(path))
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as error:
        raise _Unreadable(str(path)) from error
