"""Read before write: a file that exists is changed only once the run has seen it.

A weak model edits files it never read (in 6 of 10 small tasks the first call was an edit),
guessing their content. ``write_file`` over an existing file and ``edit_file`` are refused until
the conversation has read the file with ``read_file`` (or written or edited it, which shows its
content too): the calls of the history a run continues count, and those of the run itself the
moment they succeed. A new file needs no read. ``[tools] read_before_write = false`` turns it off.
Outside a run (no record of its calls) nothing is checked.
"""

from __future__ import annotations

from pathlib import Path

from quorum.application.succeeded_calls import succeeded_calls
from quorum.domain.errors import ToolRefusedError
from quorum.infrastructure.tools.workspace import Workspace

SHOWS_CONTENT = frozenset({"read_file", "write_file", "edit_file"})


def require_read(workspace: Workspace, raw: object, tool: str) -> None:
    """Raise ToolRefusedError when ``raw`` names an existing file the conversation has not read."""
    calls = succeeded_calls()
    if calls is None or not isinstance(raw, str):
        return
    path = workspace.resolve(raw)
    if not path.is_file():
        return  # a new file (or not a file: the tool says what is wrong)
    for call in calls:
        if call.name in SHOWS_CONTENT and _same(workspace, call.arguments.get("path"), path):
            return
    raise ToolRefusedError(
        f"{raw!r} exists and this run has not read it: call read_file {raw!r} first, then {tool} with what you read"
    )


def _same(workspace: Workspace, other: object, path: Path) -> bool:
    if not isinstance(other, str):
        return False
    try:
        return workspace.resolve(other) == path
    except ToolRefusedError:
        return False
