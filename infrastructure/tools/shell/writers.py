"""Programs whose only effect is writing the files they name: what ``[tools.sandbox] writes`` may confine.

Each entry maps a program to None (every option only changes how the named files are written)
or to a ``Rule`` naming why a call is more than a write of the named files. The list is short on
purpose; anything not on it is an unknown program. Left out: ``ln`` and ``cp -s`` (a symbolic
link planted in the workspace could point anywhere for a later, unconfined call), ``chown``/
``chgrp`` (privileges), ``install``, ``dd``, ``tar`` (they also run, read or link).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from quorum.infrastructure.tools.shell.options import Rule, dangerous_option, no_options, operands

_SED_FLAGS = frozenset("gpiImM0123456789")
_SED_COMMAND = re.compile(r"\s*(?:(?:\d+|\$|/(?:[^/\\\n]|\\.)*/)(?:\s*,\s*(?:\d+|\$|/(?:[^/\\\n]|\\.)*/))?)?\s*!?\s*")


def _chmod_rule(args: Sequence[str]) -> str | None:
    """Chmod may not set the set-user-ID, set-group-ID or sticky bits (an executable others could run as us)."""
    if found := dangerous_option(args, long=("reference",)):
        return f"chmod option {found} reads another file's mode"
    for mode in operands(args)[:1]:
        if mode.isdigit() and len(mode) >= 4 and mode[-4] != "0":
            return f"chmod {mode} sets set-user-ID, set-group-ID or sticky bits"
        if re.search(r"[+=][rwxXugo]*[st]", mode):
            return f"chmod {mode} sets set-user-ID, set-group-ID or sticky bits"
    return None


def sed_script_problem(script: str) -> str | None:
    """Why a sed script does more than substitute or delete lines (``w``, ``r``, ``e``…), or None.

    Accepted: commands separated by ``;`` or newlines, each an optional address (line number, ``$``,
    ``/regex/``, a range of those, ``!``) then ``d`` or ``s`` with any delimiter and the flags
    ``g``, ``p``, ``i``/``I``, ``m``/``M`` or a number. ``w`` (write a file) and ``e`` (run a
    command) flags, and every other command, are refused.
    """
    position = 0
    while position < len(script):
        match = _SED_COMMAND.match(script, position)
        position = match.end() if match else position
        if position >= len(script):
            return None
        if script[position] == "d":
            position += 1
        elif script[position] == "s" and position + 1 < len(script):
            end = _substitution_end(script, position + 1)
            if end is None:
                return "sed s command is not well formed"
            position = end
        else:
            return f"sed command {script[position]!r} is not a substitution or a deletion"
        after = _separator(script, position)
        if after is None:
            return "sed script holds a command other than s and d"
        position = after
    return None


def _substitution_end(script: str, start: int) -> int | None:
    """The index after the flags of an ``s`` command whose delimiter is at ``start``; None if malformed or unsafe."""
    delimiter = script[start]
    if delimiter in "\\\n":
        return None
    position, parts = start + 1, 0
    while position < len(script) and parts < 2:
        char = script[position]
        if char == "\\":
            position += 2
            continue
        if char == delimiter:
            parts += 1
        position += 1
    if parts < 2:
        return None
    while position < len(script) and script[position] in _SED_FLAGS:
        position += 1
    return position


def _separator(script: str, position: int) -> int | None:
    """The index after the separator following a command (or the end); None when something else follows."""
    while position < len(script) and script[position] in " \t":
        position += 1
    if position >= len(script):
        return position
    return position + 1 if script[position] in ";\n" else None


def _sed_rule(args: Sequence[str]) -> str | None:
    """Sed edits files only with -i (in place), and only with scripts that substitute or delete lines."""
    if found := dangerous_option(args, short="f", long=("file", "follow-symlinks")):
        return f"sed option {found} reads a script file or follows links"
    scripts: list[str] = []
    words = list(args)
    in_place = False
    rest: list[str] = []
    while words:
        word = words.pop(0)
        if word in ("-e", "--expression") and words:
            scripts.append(words.pop(0))
        elif word.startswith("--expression="):
            scripts.append(word.split("=", 1)[1])
        elif word.startswith("-e") and not word.startswith("--"):
            scripts.append(word[2:])
        elif word.startswith("--in-place") or (word.startswith("-") and not word.startswith("--") and "i" in word):
            in_place = True
        elif not word.startswith("-") or word == "-":
            rest.append(word)
    if not in_place:
        return "sed without -i only prints: it is reviewed like any program off the read-only list"
    if not scripts and rest:
        scripts.append(rest.pop(0))
    for script in scripts:
        if problem := sed_script_problem(script):
            return problem
    return None if rest else "sed -i without a file edits nothing in place"


WRITERS: dict[str, Rule | None] = {
    "mkdir": None,
    "rmdir": None,
    "touch": no_options(short="r", long=("reference",), what="reads another file's times"),
    "rm": None,
    "cp": no_options(short="sl", long=("symbolic-link", "link"), what="links instead of copying"),
    "mv": None,
    "chmod": _chmod_rule,
    "tee": None,
    "sed": _sed_rule,
}
"""Programs that write (create, change, remove) the files named as their operands and nothing else."""
