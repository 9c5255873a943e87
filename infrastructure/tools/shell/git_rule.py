"""Which ``git`` invocations are read-only: a few subcommands, none of their writing or running options.

Global options other than ``--no-pager`` are refused (``-c``, ``-C``, ``--exec-path``,
``--git-dir`` change what git runs or where it reads). Any argument holding ``:`` is refused:
pathspec magic (``:/``, ``:(top)``, ``:!``) and ``REV:path`` read relative to the repository root,
which may lie outside a sub-directory workspace. Options are matched as git's parse-options reads
them: any prefix of a long option, and its ``--no-`` form (see ``options``).
"""

from __future__ import annotations

from collections.abc import Sequence

from quorum.infrastructure.tools.shell.options import dangerous_option, short_option_letters

READ_ONLY = frozenset(
    {"status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "grep", "shortlog", "describe"}
)
_DANGEROUS_LONG = ("output", "open-files-in-pager", "ext-diff", "textconv", "no-index", "contents")
"""Write a file, run a pager/diff/filter program, or read files outside the repository."""
_DANGEROUS_SHORT = "O"  # grep: open files in a pager; diff/log: read an order file
_BRANCH_SHORT = frozenset("arvl")
_BRANCH_LONG = frozenset({"--list", "--all", "--remotes", "--verbose", "--show-current", "--no-color", "--color"})


def split_git(args: Sequence[str]) -> tuple[list[str], str, list[str]]:
    """Global options, the subcommand ('' if none) and its arguments."""
    rest = list(args)
    globals_: list[str] = []
    while rest and rest[0].startswith("-"):
        globals_.append(rest.pop(0))
    return globals_, (rest[0] if rest else ""), rest[1:]


def git_rule(args: Sequence[str]) -> str | None:
    """Why ``git ARGS`` is not read-only, or None."""
    globals_, sub, sub_args = split_git(args)
    if bad := next((g for g in globals_ if g != "--no-pager"), None):
        return f"git global option {bad} can change what git runs"
    if not sub:
        return None
    if colon := next((a for a in sub_args if ":" in a), None):
        return f"git argument {colon!r}: pathspec magic and REV:path read from the repository root"
    if found := dangerous_option(sub_args, _DANGEROUS_SHORT, _DANGEROUS_LONG):
        return f"git {sub} option {found} writes files, runs programs or reads outside the repository"
    if sub in READ_ONLY:
        return None
    checks = {"branch": _branch, "tag": _tag, "remote": _remote, "stash": _stash}
    return checks[sub](sub_args) if sub in checks else f"git {sub} is not a read-only git command"


def _longs(args: Sequence[str]) -> list[str]:
    return [a.split("=", 1)[0] for a in args if a.startswith("--")]


def _shorts(args: Sequence[str]) -> set[str]:
    return {letter for a in args for letter in short_option_letters(a)}


def _branch(args: Sequence[str]) -> str | None:
    if _shorts(args) - _BRANCH_SHORT or any(a not in _BRANCH_LONG for a in _longs(args)):
        return "git branch with an option that changes branches"
    positional = [a for a in args if not a.startswith("-")]
    if positional and not ("l" in _shorts(args) or "--list" in _longs(args)):
        return "git branch NAME creates a branch"
    return None


def _tag(args: Sequence[str]) -> str | None:
    listing = "l" in _shorts(args) or "--list" in _longs(args)
    if not args or (listing and not (_shorts(args) - {"l", "n"}) and set(_longs(args)) <= {"--list"}):
        return None
    return "git tag with arguments creates or deletes tags"


def _remote(args: Sequence[str]) -> str | None:
    return None if list(args) in ([], ["-v"], ["--verbose"]) else "git remote with arguments changes remotes"


def _stash(args: Sequence[str]) -> str | None:
    return None if args[:1] == ["list"] else "git stash changes the work tree"
