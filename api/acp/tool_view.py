"""A tool call in ACP's shapes: its ``kind``, the files it touches, its ``diff`` content.

ACP clients draw each call from a ``title`` and a ``kind`` (read, edit, execute, search, fetch,
other) and, for a file write or edit, from a ``diff`` content item (the absolute path, the text
before and after). The preview itself (the title, the file's text before and after, what may be
read to draw it) is the review's call preview, ``quorum.infrastructure.review.call_view``, the one
the terminal and ``quorum serve`` show; this module maps it to ACP. The diff is computed when the
call is announced, before it runs; when none can be shown the call shows its arguments.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal

from quorum.domain.errors import ToolRefusedError
from quorum.infrastructure.review.call_view import MAX_READ_BYTES, file_change, title_of
from quorum.infrastructure.tools.workspace import Workspace

# The title and the read limit are the preview's own, named here too for the ACP modules that draw calls.
__all__ = ["MAX_READ_BYTES", "FileDiff", "ToolKind", "diff_of", "file_path", "kind_of", "title_of"]

ToolKind = Literal["read", "edit", "delete", "move", "search", "execute", "think", "fetch", "switch_mode", "other"]

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
    """ACP's diff content of a write or an edit: the absolute ``path``; ``old`` is None for a new file."""

    path: str
    old: str | None
    new: str


def kind_of(name: str) -> ToolKind:
    """The ACP kind of the tool ``name`` (an MCP tool ``mcp__server__tool`` is judged by its own name)."""
    if name in _KINDS:
        return _KINDS[name]
    own = name.rsplit("__", 1)[-1].lower()
    return "fetch" if own in _FETCHERS else "other"


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
    """The diff content of a ``write_file``/``edit_file`` call, or None when none can be shown (``file_change``)."""
    change = file_change(name, arguments, workspace)
    return FileDiff(str(change.path), change.old, change.new) if change is not None else None
