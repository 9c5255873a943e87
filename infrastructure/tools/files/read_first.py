"""Read before write: a file that exists is changed only once the run has seen it.

A weak model edits files it never read (in 6 of 10 small tasks the first call was an edit),
guessing their content. ``write_file`` over an existing file and ``edit_file`` are refused until
the conversation has read the file with ``read_file`` (or written or edited it, which shows its
content too): the calls of the history a run continues count, and those of the run itself the
moment they succeed. It is checked before review (``BuiltinToolSource.precheck``), so a read in
the same response does not count: the model had not seen it when it wrote the edit. A new file
needs no read. ``[tools] read_before_write = false`` turns it off.
Outside a run (no record of its calls) nothing is checked.

The refusal of a small text file carries its content, which then counts as read from the next
response on: the model's next step is the edit it meant, with the text in front of it, not a
read it may repeat (a weak model re-reads a file it has just read, again and again). A file
too large to show is refused with the read to make instead.
"""

from __future__ import annotations

from pathlib import Path

from quorum.application.succeeded_calls import succeeded_calls
from quorum.domain.errors import ToolRefusedError
from quorum.domain.tools import ToolCall
from quorum.infrastructure.tools.workspace import Workspace

SHOWS_CONTENT = frozenset({"read_file", "write_file", "edit_file"})
SHOWN_MAX_BYTES = 8 * 1024
"""Largest file whose content a refusal carries; a larger one is refused with ``read_file`` to call."""


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
    content = _small_text(path)
    if content is None:
        raise ToolRefusedError(
            f"{raw!r} exists and this run has not read it: call read_file {raw!r} first, then {tool} with what you read"
        )
    calls.shown(ToolCall(native_id=f"shown:{raw}", name="read_file", arguments={"path": raw}))
    raise ToolRefusedError(
        f"{raw!r} exists and this run has not read it. Its content (now read):\n{content}\n"
        f"Call {tool} again with what you need from it, copied exactly"
    )


def _small_text(path: Path) -> str | None:
    """``path``'s text when it is small UTF-8 text, else None."""
    try:
        if path.stat().st_size > SHOWN_MAX_BYTES:
            return None
        return path.read_bytes().decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _same(workspace: Workspace, other: object, path: Path) -> bool:
    if not isinstance(other, str):
        return False
    try:
        return workspace.resolve(other) == path
    except ToolRefusedError:
        return False
