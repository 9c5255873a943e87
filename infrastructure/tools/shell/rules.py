"""The read-only allow-list of ``run_command``: programs and the options that make each one unsafe.

Each entry maps a program to None (no option of it writes, runs or reads files named indirectly)
or to a ``Rule`` naming the reason it is not read-only. Options that read a *list* of file names
from a file (``--files0-from``, ``file -f``, ``md5sum -c``) are refused even for workspace files:
the names inside could point anywhere. Where a rule would be fragile the program is left out
instead (``printenv``, ``env``: they print secrets; ``xargs``: it runs anything).
"""

from __future__ import annotations

from collections.abc import Sequence

from quorum.infrastructure.tools.shell.git_rule import git_rule
from quorum.infrastructure.tools.shell.options import Rule, no_options, operands

_FIND_REFUSED = ("-exec", "-ok", "-delete", "-fprint", "-fls", "-newer", "-anewer", "-cnewer", "-files0-from")
"""Prefixes: -exec/-execdir/-ok/-okdir run commands, -fprint*/-fls write, -newer* read other files,
-files0-from reads starting points from a file."""


def _find_rule(args: Sequence[str]) -> str | None:
    found = next((arg for arg in args if arg.startswith(_FIND_REFUSED)), None)
    return f"find {found} runs commands, writes files or reads other files" if found else None


def _uniq_rule(args: Sequence[str]) -> str | None:
    # Option values (-f 2) count as operands here, which can only make a call look riskier.
    return "uniq with an output file argument writes it" if len(operands(args)) > 1 else None


def _cd_rule(args: Sequence[str]) -> str | None:
    targets = [arg for arg in args if arg not in ("-L", "-P", "--")]
    if len(targets) != 1:
        return "cd without exactly one directory goes to the home directory or elsewhere"
    target = targets[0]
    if target.startswith("-"):
        return f"cd {target} goes to a previous or unknown directory"
    if any(char in target for char in "*?[~"):
        return f"cd {target!r}: a pattern or home directory could lead anywhere"
    return None


_JQ_FILTER_REFUSED = ("env", "ENV", "import", "include", "input_filename")


def _jq_rule(args: Sequence[str]) -> str | None:
    option = no_options(short="fL", long=("from-file", "library-path", "rawfile", "slurpfile"), what="reads files")
    if reason := option(args):
        return f"jq {reason}"
    found = next((word for arg in args for word in _JQ_FILTER_REFUSED if word in arg), None)
    return f"jq filter using {found!r} reads the environment or other files" if found else None


_TEST = no_options(short="vR", what="evaluates a variable name (bash runs $(…) in an array subscript)")
"""``test``/``[``: bash's ``-v``/``-R`` evaluate a name, and ``-v 'a[$(cmd)]'`` runs ``cmd`` even
single-quoted; every other operator only compares strings, numbers or workspace files."""

_FILES0 = ("files0-from",)
_CHECKSUM = no_options(short="c", long=("check",), what="reads the files named in a list")

ALLOWED: dict[str, Rule | None] = {
    "ls": None,
    "pwd": None,
    "cd": _cd_rule,
    "echo": None,
    "printf": no_options(short="v"),
    "cat": None,
    "head": None,
    "tail": None,
    "wc": no_options(long=_FILES0, what="reads the files named in a list"),
    "nl": None,
    "grep": None,
    "egrep": None,
    "fgrep": None,
    "rg": no_options(short="z", long=("pre", "pre-glob", "hostname-bin", "search-zip"), what="runs programs"),
    "find": _find_rule,
    "stat": None,
    "file": no_options(
        short="CfmzZ",
        long=("compile", "files-from", "magic-file", "uncompress", "uncompress-noreport"),
        what="writes, reads other files or runs decompressors",
    ),
    "tree": no_options(
        short="oR",
        long=("output", "fromfile", "fromtabfile", "infofile", "gitfile", "hintro", "houtro"),
        what="writes or reads other files",
    ),
    "realpath": None,
    "dirname": None,
    "basename": None,
    "du": no_options(long=_FILES0, what="reads the files named in a list"),
    "df": None,
    "which": None,
    "whoami": None,
    "id": None,
    "uname": None,
    "date": no_options(short="sf", long=("set", "file"), what="sets the clock or reads a file"),
    "sort": no_options(
        short="oT",
        long=("output", "compress-program", "temporary-directory", "files0-from", "random-source"),
        what="writes, runs or reads other files",
    ),
    "uniq": _uniq_rule,
    "cut": None,
    "tr": None,
    "diff": no_options(long=("output", "from-file", "to-file"), what="writes or compares against other files"),
    "cmp": None,
    "comm": None,
    "jq": _jq_rule,
    "md5sum": _CHECKSUM,
    "sha256sum": _CHECKSUM,
    "seq": None,
    "true": None,
    "false": None,
    "test": _TEST,
    "[": _TEST,
    "git": git_rule,
}
"""Read-only programs and, for those with writing, running or indirect-reading options, their rule."""
