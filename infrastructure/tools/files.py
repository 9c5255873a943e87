"""File tools: read_file, write_file, edit_file, list_dir. Blocking; the source runs them in threads.

Each function takes the ``Workspace`` and the call's arguments, returns the text for the model and
raises ``ToolRefusedError`` for expected failures (missing file, binary file, ambiguous edit…).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from quorum.domain.errors import ToolRefusedError
from quorum.infrastructure.tools.workspace import Workspace

BINARY_SNIFF_BYTES = 8192


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
        raise ToolRefusedError(f"no such file: {raw!r}")
    if path.is_dir():
        raise ToolRefusedError(f"{raw!r} is a directory; use list_dir")
    return path


def read_file(workspace: Workspace, arguments: dict[str, Any], limit_bytes: int) -> str:
    """Lines ``offset`` (1-based, default 1) to ``offset + limit - 1`` of a text file.

    Reads line by line and stops after ``limit_bytes`` of text, so a huge file costs no more than
    the output it can show. Binary files are summarised, not dumped.
    """
    path = _existing_file(workspace, arguments.get("path"))
    offset = _int_arg(arguments, "offset", 1, 1) or 1
    limit = _int_arg(arguments, "limit", None, 1)
    # peek, not read+seek: FIFOs and devices cannot seek back.
    with path.open("rb", buffering=BINARY_SNIFF_BYTES) as handle:
        if looks_binary(handle.peek(BINARY_SNIFF_BYTES)[:BINARY_SNIFF_BYTES]):
            size = path.stat().st_size
            return f"[binary file {workspace.relative(path)}, {size} bytes; not shown]"
        kept: list[str] = []
        used = 0
        line_no = 0
        more = False
        for raw_line in handle:
            line_no += 1
            if line_no < offset:
                continue
            if (limit is not None and len(kept) >= limit) or used >= limit_bytes:
                more = True
                break
            text = raw_line.decode("utf-8", errors="replace")
            kept.append(text)
            used += len(raw_line)
    if line_no < offset and offset > 1:
        raise ToolRefusedError(f"offset {offset} is past the end of {arguments.get('path')!r} ({line_no} lines)")
    body = "".join(kept)
    if more or offset > 1:
        last = offset + len(kept) - 1
        suffix = "; more follows, read on with offset" if more else ""
        body += f"\n[lines {offset}-{last} of {workspace.relative(path)}{suffix}]"
    return body


def write_file(workspace: Workspace, arguments: dict[str, Any]) -> str:
    """Create or overwrite a file with ``content``, creating parent directories inside the workspace."""
    raw = arguments.get("path")
    content = arguments.get("content")
    if not isinstance(content, str):
        raise ToolRefusedError("content must be a string")
    path = workspace.resolve(raw)
    if path == workspace.root or path.is_dir():
        raise ToolRefusedError(f"{raw!r} is a directory")
    existed = path.exists()
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8")
    path.write_bytes(data)
    verb = "overwrote" if existed else "created"
    return f"{verb} {workspace.relative(path)} ({len(data)} bytes)"


def edit_file(workspace: Workspace, arguments: dict[str, Any]) -> str:
    """Replace the one occurrence of ``old_text`` with ``new_text``; zero or several is an error."""
    raw = arguments.get("path")
    old, new = arguments.get("old_text"), arguments.get("new_text")
    if not isinstance(old, str) or not isinstance(new, str):
        raise ToolRefusedError("old_text and new_text must be strings")
    if old == "":
        raise ToolRefusedError("old_text is empty; give the exact text to replace")
    path = _existing_file(workspace, raw)
    data = path.read_bytes()
    if looks_binary(data[:BINARY_SNIFF_BYTES]):
        raise ToolRefusedError(f"{raw!r} is a binary file; edit_file only edits text")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise ToolRefusedError(f"{raw!r} is not valid UTF-8 text ({error.reason})") from error
    count = text.count(old)
    if count == 0:
        raise ToolRefusedError(f"old_text was not found in {raw!r}; read the file and copy the text exactly")
    if count > 1:
        raise ToolRefusedError(
            f"old_text occurs {count} times in {raw!r}; include more surrounding text so it is unique"
        )
    line = text[: text.index(old)].count("\n") + 1
    path.write_text(text.replace(old, new, 1), encoding="utf-8", newline="")
    return f"edited {workspace.relative(path)}: replaced 1 occurrence at line {line}"


def list_dir(workspace: Workspace, arguments: dict[str, Any]) -> str:
    """Entries of a directory, sorted: directories end with ``/``, files show their size."""
    raw = arguments.get("path")
    path = workspace.resolve(raw)
    if not path.exists():
        raise ToolRefusedError(f"no such directory: {raw!r}")
    if not path.is_dir():
        raise ToolRefusedError(f"{raw!r} is a file; use read_file")
    lines: list[str] = []
    with os.scandir(path) as entries:
        for entry in sorted(entries, key=lambda e: e.name):
            if entry.is_symlink():
                lines.append(f"{entry.name}@ -> {os.readlink(entry.path)}")
            elif entry.is_dir():
                lines.append(f"{entry.name}/")
            else:
                lines.append(f"{entry.name}  ({entry.stat().st_size} bytes)")
    header = f"{workspace.relative(path)}: {len(lines)} entries"
    return "\n".join([header, *lines])
