"""A tool call before it runs, as a person judges it: the one home of the call preview.

Every driver that shows a call before it runs draws it from here: the terminal's review prompt and
``quorum serve``'s review card (``call_lines``), the ACP agent's tool calls and permission
requests (``title_of`` and ``file_change``, mapped to ACP's shapes in ``quorum.acp.tool_view``).

``call_lines`` turns one call into lines with every control and invisible formatting character
shown as its escape (``printable``: a bidi override in a command or a file name reads ``\u202e``,
on the terminal and in the web page's card alike; the file itself is unchanged):

- ``write_file``: "overwrites PATH (N lines → M lines)" and a unified diff against the file in the
  workspace, or "new file PATH, N lines" and its content;
- ``edit_file``: a unified diff of the file before and after the replacement, or, when ``old_text``
  does not occur exactly once, why the edit will fail and the old and new text;
- ``run_command``: the command verbatim and the directory it runs in;
- a plan (plan mode's ``propose_plan``): the numbered plan;
- any other tool: its arguments as indented JSON.

``file_change`` is the same write or edit as data (the file's text before and after), and
``title_of`` a call in one line.

Files are read only inside the workspace (``Workspace.resolve``): a path outside it, through a
symbolic link or not, is reported and never read. Only regular files are read (a FIFO would block
the prompt), only up to ``MAX_READ_BYTES``, and never a binary file (one with a NUL byte); bytes
that are not UTF-8 are shown as U+FFFD.
"""

from __future__ import annotations

import difflib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quorum.application.plan_mode import plan_of
from quorum.domain.errors import ToolRefusedError
from quorum.domain.tools import ToolCall
from quorum.infrastructure.terminal_text import printable
from quorum.infrastructure.tools.workspace import Workspace

MAX_READ_BYTES = 1_000_000
"""Larger files are summarised, not diffed (reading and diffing them would stall the prompt or the editor)."""
MAX_TITLE = 120
"""Characters of a title before it is cut (a command line can be long)."""


@dataclass(frozen=True)
class FileChange:
    """What a ``write_file`` or ``edit_file`` call will change, read before it runs.

    Attributes:
        path: the file's real path, inside the workspace.
        shown: the path as shown to a person (relative to the workspace).
        old: the file's current text; None for a new file.
        new: the file's text after the call.
    """

    path: Path
    shown: str
    old: str | None
    new: str


def call_lines(call: ToolCall, workspace: Workspace | None) -> list[str]:
    """The lines showing ``call``'s effect, escaped with ``printable`` (see the module docstring)."""
    return [printable(line) for line in _lines(call, workspace)]


def _lines(call: ToolCall, workspace: Workspace | None) -> list[str]:
    arguments = dict(call.arguments)
    if call.name == "write_file" and isinstance(arguments.get("content"), str):
        return _write_file(arguments, workspace)
    if (
        call.name == "edit_file"
        and isinstance(arguments.get("old_text"), str)
        and isinstance(arguments.get("new_text"), str)
    ):
        return _edit_file(arguments, workspace)
    if call.name == "run_command" and isinstance(arguments.get("command"), str):
        return _run_command(arguments, workspace)
    plan = plan_of(call)
    if plan is not None:  # plan mode: the plan as the numbered list it will be carried out as
        return ["proposed plan:", *("  " + line for line in plan.numbered().splitlines())]
    return ["arguments:", *("  " + line for line in _json_lines(arguments))]


def file_change(name: str, arguments: Mapping[str, Any], workspace: Workspace | None) -> FileChange | None:
    """The change a ``write_file`` or ``edit_file`` call will make, or None when none can be shown.

    None for any other tool, for arguments of the wrong type, for a file that must not or cannot be
    read (see the module docstring), and for an edit that will fail (``old_text`` missing, empty,
    or not exactly once in the file: the tool's result says why).
    """
    if name == "write_file" and isinstance(content := arguments.get("content"), str):
        try:
            path, shown, old = _current_text(workspace, arguments.get("path"))
        except _Unreadable:
            return None
        return FileChange(path, shown, old, content)
    old_part, new_part = arguments.get("old_text"), arguments.get("new_text")
    if name != "edit_file" or not isinstance(old_part, str) or not isinstance(new_part, str):
        return None
    try:
        path, shown, text = _current_text(workspace, arguments.get("path"))
    except _Unreadable:
        return None
    if text is None or _occurrences(text, old_part) != 1:
        return None
    return FileChange(path, shown, text, text.replace(old_part, new_part, 1))


def title_of(name: str, arguments: Mapping[str, Any]) -> str:
    """A one-line title: ``Read docs/a.md``, ``Run make test``, ``time: get_current_time``.

    Cut to ``MAX_TITLE`` characters, its whitespace (a command's newlines) collapsed to spaces, control
    and invisible characters escaped (``printable``).
    """
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
    title = printable(" ".join(title.split()))  # one line: a command's newlines would break the client's row
    return title if len(title) <= MAX_TITLE else title[: MAX_TITLE - 1] + "…"


def text_lines(text: str) -> list[str]:
    r"""``text`` split at newlines only (a ``\r`` or form feed is content to show, not a line break)."""
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def _json_lines(value: Mapping[str, Any]) -> list[str]:
    return json.dumps(dict(value), indent=2, ensure_ascii=False, default=str).splitlines()


class _Unreadable(Exception):
    """Why the current file cannot be shown (outside the workspace, a directory, binary…)."""


def _current_text(workspace: Workspace | None, raw: Any) -> tuple[Path, str, str | None]:
    """The file's real path, the path as shown and the file's current text (None when it does not exist).

    Raises:
        _Unreadable: the file must not or cannot be read; the message says why.
    """
    if not isinstance(raw, str) or not raw:
        raise _Unreadable(f"path {raw!r} is not a file path (the tool will refuse it)")
    if workspace is None:
        raise _Unreadable(f"{raw}: no workspace is known, so the current file is not shown")
    try:
        path = workspace.resolve(raw)
    except ToolRefusedError as error:
        raise _Unreadable(f"{error} (not read; the tool will refuse it)") from error
    shown = workspace.relative(path)
    if not path.exists():
        return path, shown, None
    if path.is_dir():
        raise _Unreadable(f"{shown} is a directory (the tool will refuse it)")
    if not path.is_file():
        raise _Unreadable(f"{shown} is not a regular file; not read")
    size = path.stat().st_size
    if size > MAX_READ_BYTES:
        raise _Unreadable(f"{shown} exists ({size} bytes; too large to show a diff)")
    data = _read(path)
    if b"\x00" in data:
        raise _Unreadable(f"{shown} exists and is a binary file ({size} bytes); not shown")
    return path, shown, data.decode("utf-8", errors="replace")


def _read(path: Path) -> bytes:
    try:
        with path.open("rb") as handle:
            return handle.read(MAX_READ_BYTES + 1)
    except OSError as error:
        raise _Unreadable(f"{path.name} could not be read ({error.strerror or error})") from error


def _count(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


def _write_file(arguments: dict[str, Any], workspace: Workspace | None) -> list[str]:
    content: str = arguments["content"]
    new = text_lines(content)
    try:
        _, shown, old_text = _current_text(workspace, arguments.get("path"))
    except _Unreadable as why:
        return [f"writes {_count(len(new))}; {why}", *("+" + line for line in new)]
    if old_text is None:
        return [f"new file {shown}, {_count(len(new))}", *("+" + line for line in new)]
    old = text_lines(old_text)
    header = f"overwrites {shown} ({_count(len(old))} → {_count(len(new))})"
    if old_text == content:
        return [f"{header}: the content is identical"]
    return [header, *_diff(old_text, content, shown)]


def _edit_file(arguments: dict[str, Any], workspace: Workspace | None) -> list[str]:
    old_part: str = arguments["old_text"]
    new_part: str = arguments["new_text"]
    shown_texts = [
        "old_text:",
        *("  " + line for line in text_lines(old_part)),
        "new_text:",
        *("  " + line for line in text_lines(new_part)),
    ]
    try:
        _, shown, text = _current_text(workspace, arguments.get("path"))
    except _Unreadable as why:
        return [f"edit: {why}", *shown_texts]
    if text is None:
        return [f"edit: {shown} does not exist (the tool will refuse the edit)", *shown_texts]
    count = _occurrences(text, old_part)
    if count != 1:
        times = "does not occur" if count == 0 else f"occurs {count} times"
        return [f"edit of {shown}: old_text {times} in the file (the tool will refuse the edit)", *shown_texts]
    after = text.replace(old_part, new_part, 1)
    header = f"edits {shown} ({_count(len(text_lines(text)))} → {_count(len(text_lines(after)))})"
    return [header, *_diff(text, after, shown)]


def _occurrences(text: str, part: str) -> int:
    """How often ``part`` occurs in ``text``; an empty ``part`` never does (the tool refuses it)."""
    return text.count(part) if part else 0


def _diff(before: str, after: str, shown: str) -> list[str]:
    """A unified diff; a last line without a newline is marked, as ``diff`` does."""
    lines: list[str] = []
    for index, line in enumerate(
        difflib.unified_diff(
            _with_ends(before), _with_ends(after), fromfile=f"a/{shown}", tofile=f"b/{shown}", lineterm=""
        )
    ):
        if index < 2 or line.startswith("@@ "):
            lines.append(line)  # the ---/+++ and hunk headers carry no line end
        elif line.endswith("\n"):
            lines.append(line[:-1])
        else:
            lines += [line, "\\ No newline at end of file"]
    return lines


def _with_ends(text: str) -> list[str]:
    r"""Lines split at newlines only, each keeping its newline, so "a" and "a\n" differ in the diff."""
    parts = text.split("\n")
    return [part + "\n" for part in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _run_command(arguments: dict[str, Any], workspace: Workspace | None) -> list[str]:
    command: str = arguments["command"]
    lines = ["command:", *("  " + line for line in command.split("\n"))]
    lines.append(f"in: {_directory(arguments.get('cwd'), workspace)}")
    rest = {k: v for k, v in arguments.items() if k not in ("command", "cwd")}
    if rest:
        lines += ["other arguments:", *("  " + line for line in _json_lines(rest))]
    return lines


def _directory(cwd: Any, workspace: Workspace | None) -> str:
    if workspace is None:
        return "the workspace" if cwd in (None, "") else f"{cwd} (relative to the workspace)"
    if cwd in (None, ""):
        return f"{workspace.root} (the workspace)"
    try:
        path = workspace.resolve(str(cwd))
    except ToolRefusedError as error:
        return f"{cwd}: {error} (the tool will refuse it)"
    return f"{path} ({workspace.relative(path)} in the workspace)"
