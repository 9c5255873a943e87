"""File tools: read_file, write_file, edit_file, list_dir. Blocking; the source runs them in daemon threads.

Each function takes the ``Workspace`` and the call's arguments, returns the text for the model and
raises ``ToolRefusedError`` for expected failures (missing file, binary file, ambiguous edit…).
Only regular files are read or written (``regular``), reads stream in bounded chunks
(``read_lines``) and writes replace the file atomically (``atomic_write``).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from quorum.domain.errors import ToolRefusedError
from quorum.infrastructure.tools.blocking import NEVER, StopFlag
from quorum.infrastructure.tools.files.atomic_write import Replaced, replace_file
from quorum.infrastructure.tools.files.edit_view import edited_lines
from quorum.infrastructure.tools.files.next_step import missing
from quorum.infrastructure.tools.files.read_lines import read_lines
from quorum.infrastructure.tools.files.regular import kind_of, open_regular, refuse_unless_regular
from quorum.infrastructure.tools.files.structured import FORMATS, broken_warning
from quorum.infrastructure.tools.workspace import Workspace, printable

BINARY_SNIFF_BYTES = 8192
EDIT_MAX_BYTES = 10_000_000
NOTE_ROOM_BYTES = 260
"""Room kept under the output cap for the notes saying where the slice is (plus the file name twice)."""


def looks_binary(sample: bytes) -> bool:
    """Whether bytes look like a binary file (a NUL byte in the sample, like git and grep decide)."""
    return b"\x00" in sample


def _int_arg(arguments: dict[str, Any], name: str, default: int | None, minimum: int) -> int | None:
    value = arguments.get(name, default)
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float) or int(value) != value:
        raise ToolRefusedError(f"{name} must be an integer, got {value!r}")
    if value < minimum:
        raise ToolRefusedError(f"{name} must be at least {minimum}, got {value}")
    return int(value)


def _existing_file(workspace: Workspace, raw: Any) -> Path:
    path = workspace.resolve(raw)
    if not path.exists():
        raise ToolRefusedError(missing(workspace, raw))
    if path.is_dir():
        raise ToolRefusedError(f"{raw!r} is a directory; use list_dir {raw!r} to see its files")
    return path


def read_file(workspace: Workspace, arguments: dict[str, Any], limit_bytes: int, stop: StopFlag = NEVER) -> str:
    """Lines ``offset`` (1-based, default 1) to ``offset + limit - 1`` of a text file.

    Streams the file in bounded chunks and stops once ``limit_bytes`` of text are shown, so a
    huge file (even one huge line) costs no more memory than the output. Binary files are
    summarised, not dumped; pipes, sockets and devices are refused without being read.
    """
    raw = arguments.get("path")
    path = _existing_file(workspace, raw)
    offset = _int_arg(arguments, "offset", 1, 1) or 1
    limit = _int_arg(arguments, "limit", None, 1)
    shown = workspace.relative(path)
    with open_regular(path, str(raw), "read_file") as handle:
        size = os.fstat(handle.fileno()).st_size
        if looks_binary(handle.peek(BINARY_SNIFF_BYTES)[:BINARY_SNIFF_BYTES]):
            return f"[binary file {shown}, {size} bytes; not shown]"
        room = NOTE_ROOM_BYTES + 2 * len(shown.encode())  # the notes name the file twice
        budget = max(limit_bytes - room, limit_bytes // 2)
        lines = read_lines(handle, size, offset, limit, budget, stop)
    if lines.shown == 0 and offset > 1:
        raise ToolRefusedError(
            f"offset {offset} is past the end of {raw!r} ({lines.lines_seen} lines); read it with a smaller offset"
        )
    body = lines.data.decode("utf-8", errors="replace")
    notes = []
    if lines.cut_line is not None:
        kept = len(lines.data.rsplit(b"\n", 1)[-1])
        notes.append(
            f"line {lines.cut_line} is longer than the output limit: showed its first {kept} bytes "
            f"({shown} is {size} bytes; use run_command with head -c or cut for the rest)"
        )
    if lines.more or offset > 1:
        last = offset + lines.shown - 1
        suffix = "; more follows, read on with offset" if lines.more else ""
        notes.append(f"lines {offset}-{last} of {shown}{suffix}")
    return body + "".join(f"\n[{note}]" for note in notes)


def _lstat_or_none(path: Path, raw: Any, tool: str) -> os.stat_result | None:
    try:
        old = os.lstat(path)
    except FileNotFoundError:
        return None
    refuse_unless_regular(old.st_mode, str(raw), tool)
    return old


def _links_note(replaced: Replaced) -> str:
    if not replaced.other_links:
        return ""
    return f"; it had {replaced.other_links} other hard link(s), which keep the old content"


def write_file(workspace: Workspace, arguments: dict[str, Any]) -> str:
    """Create or overwrite a file with ``content`` atomically, creating parent directories inside the workspace."""
    raw = arguments.get("path")
    content = arguments.get("content")
    if not isinstance(content, str):
        raise ToolRefusedError("content must be a string: the complete new text of the file")
    path = workspace.resolve(raw)
    if path == workspace.root or path.is_dir():
        raise ToolRefusedError(f"{raw!r} is a directory; give a file path inside it")
    old = _lstat_or_none(path, raw, "write_file")
    before = _structured_text(path, old)
    path.parent.mkdir(parents=True, exist_ok=True)
    try:
        data = content.encode("utf-8")
    except UnicodeEncodeError as error:
        raise ToolRefusedError(
            f"content is not valid Unicode text ({error.reason} at {error.start}); send it as text"
        ) from error
    replaced = replace_file(path, data, old)
    verb = "overwrote" if replaced.existed else "created"
    shown = workspace.relative(path)
    warning = broken_warning(shown, before, content) if shown_structured(shown) else ""
    return f"{verb} {shown} ({len(data)} bytes){_links_note(replaced)}{warning}"


def shown_structured(name: str) -> bool:
    """Whether ``name`` is a file whose format is checked after a change (JSON, TOML, YAML)."""
    return Path(name).suffix.lower() in FORMATS


def _structured_text(path: Path, old: os.stat_result | None) -> str | None:
    """The current text of a structured file about to be overwritten (None: new, too large, unreadable)."""
    if old is None or not shown_structured(path.name) or old.st_size > EDIT_MAX_BYTES:
        return None
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _at_lines(text: str, part: str, shown: int = 5) -> str:
    """Where ``part`` occurs in ``text``, in words: "at lines 1 and 5", "all on line 3", up to ``shown`` lines."""
    numbers: list[int] = []
    start = text.find(part)
    while start != -1 and len(numbers) <= shown:
        line = text.count("\n", 0, start) + 1
        if line not in numbers:
            numbers.append(line)
        start = text.find(part, start + len(part))
    if len(numbers) == 1:
        return f"all on line {numbers[0]}"
    if len(numbers) > shown:
        return f"at lines {', '.join(map(str, numbers[:shown]))}, …"
    return f"at lines {', '.join(map(str, numbers[:-1]))} and {numbers[-1]}"


def edit_file(workspace: Workspace, arguments: dict[str, Any]) -> str:
    """Replace the one occurrence of ``old_text`` with ``new_text``; zero or several is an error."""
    raw = arguments.get("path")
    old, new = arguments.get("old_text"), arguments.get("new_text")
    if not isinstance(old, str) or not isinstance(new, str):
        raise ToolRefusedError("old_text and new_text must be strings")
    if old == "":
        raise ToolRefusedError("old_text is empty; give the exact text to replace (read_file shows it)")
    if old == new:
        raise ToolRefusedError(
            "old_text and new_text are the same, so nothing would change; put the changed text in new_text "
            "(if the file already reads as you want, this change is done: go on with the task)"
        )
    path = _existing_file(workspace, raw)
    with open_regular(path, str(raw), "edit_file") as handle:
        before = os.fstat(handle.fileno())
        data = handle.read(EDIT_MAX_BYTES + 1)
    if len(data) > EDIT_MAX_BYTES:
        raise ToolRefusedError(
            f"{raw!r} is over {EDIT_MAX_BYTES // 1_000_000} MB; edit_file edits smaller files (use run_command)"
        )
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise ToolRefusedError(f"{raw!r} is a binary file; edit_file only edits text (use run_command)")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ToolRefusedError(
            f"{raw!r} is not valid UTF-8 text ({error.reason}); use run_command to change it"
        ) from error
    count = text.count(old)
    if count == 0:
        raise ToolRefusedError(
            f"old_text was not found in {raw!r}; read the file and copy the text exactly (to add lines, "
            "put an existing line in old_text, and that line with the added ones in new_text)"
        )
    if count > 1:
        raise ToolRefusedError(
            f"old_text occurs {count} times in {raw!r}, {_at_lines(text, old)}; include more of the "
            "surrounding text so it is unique, and change each occurrence with its own edit_file call"
        )
    line = text[: text.index(old)].count("\n") + 1
    try:
        new_data = text.replace(old, new, 1).encode("utf-8")
    except UnicodeEncodeError as error:
        raise ToolRefusedError(f"new_text is not valid Unicode text ({error.reason}); send it as text") from error
    replaced = replace_file(path, new_data, before)
    shown = workspace.relative(path)
    after = text.replace(old, new, 1)
    warning = broken_warning(shown, text, after) if shown_structured(shown) else ""
    view = edited_lines(after, line, new.count("\n") + (0 if new.endswith("\n") else 1))
    return (
        f"edited {shown}: replaced 1 occurrence at line {line}{_links_note(replaced)}{warning}\n"
        f"{shown} now reads (changed lines marked >):\n{view}"
    )


def list_dir(workspace: Workspace, arguments: dict[str, Any]) -> str:
    """Entries of a directory, sorted: directories end with ``/``, files show their size."""
    raw = arguments.get("path")
    path = workspace.resolve(raw)
    if not path.exists():
        raise ToolRefusedError(missing(workspace, raw, "directory"))
    if not path.is_dir():
        raise ToolRefusedError(f"{raw!r} is a file; use read_file {raw!r}")
    lines: list[str] = []
    with os.scandir(path) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            name = printable(entry.name)
            if entry.is_symlink():
                lines.append(f"{name}@ -> {printable(os.readlink(entry.path))}")
            elif entry.is_dir():
                lines.append(f"{name}/")
            elif entry.is_file():
                lines.append(f"{name}  ({entry.stat().st_size} bytes)")
            else:
                lines.append(f"{name}  ({kind_of(entry.stat(follow_symlinks=False).st_mode)})")
    header = f"{workspace.relative(path)}: {len(lines)} entries"
    return "\n".join([header, *lines])
