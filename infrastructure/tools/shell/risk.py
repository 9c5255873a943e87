"""Per-call risk of a shell command: low only for a read-only allow-list, judged on a real parse.

The command is parsed with ``syntax.parse_command`` (quotes, escapes, operators, nested
scripts, wrappers: what ``/bin/sh -c`` would run). It is low risk only when *every* simple command
in it, wherever it hides, is an allow-listed program (``rules.ALLOWED``) used without its
writing, running or indirect-reading options. Anything the classifier cannot be sure of is high,
so a mistake costs a review, never an unreviewed write or an unreviewed read of a secret:

- parse errors; command or process substitution, subshells, groups, compound commands;
- any ``$`` outside single quotes (``$HOME``, ``${IFS}``, ``$OPENAI_API_KEY``), brace expansion;
- globs that can match ``..`` or hidden directories (``.*``, ``.?/``, ``[.]x``);
- output redirection except to ``/dev/null`` or fd duplication (``2>&1``); input redirection
  from anything but a workspace-relative path or ``/dev/null``; here-documents and here-strings;
- leading ``VAR=value`` assignments, wrappers (``env``, ``sudo``, ``xargs``…), programs by path;
- words that may name a path outside the workspace anywhere in them: absolute paths and ``~``
  at any path start (after ``=``, ``:``, ``,``, ``{``, or anywhere in a short-option cluster such
  as ``-f/etc/passwd``), and ``..`` as any path component;
- naming ``quorum.toml``, or a glob that could match it: it may hold provider keys, and output
  redaction cannot catch a key read through ``tr`` or ``base64``. (A recursive ``grep`` of the
  workspace can still reach it; the sandbox shows a redacted copy instead.)

The sandbox enforces the same boundary when it is on; this classifier decides what needs review,
and it is the only guard when ``[tools.sandbox] mode = "off"``.
"""

from __future__ import annotations

from collections.abc import Sequence
from fnmatch import fnmatchcase

from quorum.domain.tools import RiskAssessment, RiskLevel
from quorum.infrastructure.tools.shell.git_rule import split_git
from quorum.infrastructure.tools.shell.rules import ALLOWED
from quorum.infrastructure.tools.shell.syntax import ParsedCommand, Redirection, SimpleCommand, parse_command

_NULL = "/dev/null"
_PATH_STARTS = frozenset("=:,{")
_OUTPUT = frozenset({">", ">>", "&>", "&>>", ">|"})
_HERE = frozenset({"<<", "<<-", "<<<"})
_GLOB_CHARS = frozenset("*?[")
_SECRET_FILES = ("quorum.toml",)
"""Workspace files that may hold provider keys (the local configuration layer)."""


def _high(reason: str) -> RiskAssessment:
    return RiskAssessment(level=RiskLevel.HIGH, reason=reason)


def classify_command(command: str) -> RiskAssessment:
    """The risk of running ``command`` with ``sh -c``, with the reason shown to reviewers."""
    if not command.strip():
        return RiskAssessment(level=RiskLevel.LOW, reason="empty command")
    # The text parsed is the text run: stripping would turn a trailing backslash-newline (a line
    # continuation, here a syntax error) into a literal backslash, and classify another command.
    parsed = parse_command(command)
    reason = _whole_command_reason(parsed)
    for simple in parsed.commands:
        reason = reason or _command_reason(simple)
    if reason:
        return _high(reason)
    programs = [_label(simple.words) for simple in parsed.commands]
    return RiskAssessment(level=RiskLevel.LOW, reason=f"read-only command ({', '.join(dict.fromkeys(programs))})")


def _whole_command_reason(parsed: ParsedCommand) -> str | None:
    if parsed.error:
        return f"the command could not be parsed ({parsed.error})"
    if parsed.substitutions:
        return "command substitution runs another command"
    if parsed.grouping:
        return "subshells and groups are reviewed"
    if parsed.compound:
        return "if/for/while/case blocks and functions are reviewed"
    if parsed.expansions:
        return "$ expansions can read the environment or build any path"
    if parsed.braces:
        return "brace expansion can build any path"
    if pattern := next((p for p in parsed.glob_patterns if _glob_reaches_dot(p)), None):
        return f"glob {pattern!r} can match '..' or hidden directories"
    for pattern in parsed.glob_patterns:
        if secret := next(
            (f for f in _SECRET_FILES if fnmatchcase(f, pattern) or fnmatchcase(f"./{f}", pattern)), None
        ):
            return f"glob {pattern!r} can match {secret}, which may hold provider keys"
    return None


def _command_reason(simple: SimpleCommand) -> str | None:
    if simple.assignments:
        return f"environment assignment {simple.assignments[0].split('=')[0]}=… can change what runs"
    for redirection in simple.redirections:
        if reason := _redirection_reason(redirection):
            return reason
    for word in (*simple.words, *(r.target for r in simple.redirections)):
        if secret := next((f for f in _SECRET_FILES if f in _components(word)), None):
            return f"{secret} may hold provider keys: reading it is reviewed"
    if not simple.words:
        return None
    program, args = simple.words[0], simple.words[1:]
    if "/" in program:
        return f"{program!r} names a program by path"
    if program not in ALLOWED:
        return f"{program!r} is not on the read-only allow-list"
    if outside := next((word for word in args if reaches_outside(word)), None):
        return f"{outside!r} reaches outside the workspace"
    rule = ALLOWED[program]
    return rule(args) if rule is not None else None


def _redirection_reason(redirection: Redirection) -> str | None:
    operator, target = redirection.operator, redirection.target
    if operator in _HERE:
        return "here-documents and here-strings are reviewed"
    if operator in (">&", "<&") and (target == "-" or target.rstrip("-").isdigit()):
        return None  # duplicating or closing a file descriptor (2>&1)
    if operator in _OUTPUT and target == _NULL:
        return None
    if operator == "<":
        if target and not reaches_outside(target):
            return None  # reading a workspace file into stdin
        return f"input redirection from {target!r} reads outside the workspace"
    return f"output redirection ({operator}) writes a file"


def reaches_outside(word: str) -> bool:
    """Whether ``word`` may name a path outside the workspace anywhere in it (errs towards yes)."""
    if word.startswith("-") and not word.startswith("--"):
        # A short-option cluster may end in an attached value at any letter: -f/etc/x, -rf../x.
        starts: Sequence[int] = range(1, len(word))
    else:
        starts = [0, *(i + 1 for i, char in enumerate(word) if char in _PATH_STARTS)]
    for start in starts:
        value = word[start:]
        if value.startswith("~") or value == ".." or value.startswith("../"):
            return True
        if value.startswith("/") and _first_path(value) != _NULL:
            return True
    return ".." in _components(word)


def _first_path(value: str) -> str:
    end = next((i for i, char in enumerate(value) if char in _PATH_STARTS), len(value))
    return value[:end]


def _components(word: str) -> list[str]:
    for separator in _PATH_STARTS | {"}"}:
        word = word.replace(separator, "/")
    return word.split("/")


def _glob_reaches_dot(pattern: str) -> bool:
    """Whether a component of ``pattern`` could match ``.``, ``..`` or a hidden name.

    ``*`` and ``?`` never match a leading dot, but a component starting with ``.`` (``.*``), or with
    a bracket expression (``[.]x``, where POSIX leaves the match unspecified), may.
    """
    return any(_has_glob(part) and part.startswith((".", "[")) for part in pattern.split("/"))


def _has_glob(component: str) -> bool:
    escaped = False
    for char in component:
        if not escaped and char in _GLOB_CHARS:
            return True
        escaped = not escaped and char == "\\"
    return False


def _label(words: tuple[str, ...]) -> str:
    if words[:1] == ("git",):
        sub = split_git(words[1:])[1]
        return f"git {sub}" if sub else "git"
    return words[0] if words else "(redirection only)"
