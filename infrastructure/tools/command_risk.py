"""Per-call risk of a shell command: low only for a read-only allow-list, parsed with a real tokenizer.

The command is split with ``shlex`` (POSIX mode, ``punctuation_chars``) into words and operators, the
way ``sh`` would split it, then judged segment by segment (segments are separated by ``;``, ``&&``,
``||``, ``|``, ``|&``, ``&``). A command is low risk only when every segment starts with an
allow-listed program used without any of its writing/executing options. Anything the classifier
cannot be sure of is high risk, so a mistake costs a review, never an unreviewed write:

- command or process substitution (``$(…)``, backticks, ``<(…)``), subshells and groups, newlines;
- output redirection in any spelling (``>``, ``>>``, ``x>f``, ``&>``, ``>|``), except to
  ``/dev/null`` or duplicating a file descriptor (``2>&1``);
- leading ``VAR=value`` assignments (``LD_PRELOAD=… ls`` runs code), wrappers (``env``, ``sudo``,
  ``xargs``, ``nice``, ``timeout``…), programs named by path (``./ls``) and unknown programs;
- allow-listed programs with mutating options: ``find -exec/-delete/-fprint``, ``sort -o``,
  ``git branch -D``, ``git diff --output``, ``rg --pre``, ``tree -o``, ``date -s``…;
- words that reach outside the workspace (absolute paths, ``~``, ``..`` components): reading
  ``/etc/passwd`` or ``~/.ssh`` sends secrets to the model, so it is reviewed like a write.

Comments are not stripped (``#`` stays a word), which can only make a command look riskier.
"""

from __future__ import annotations

import shlex
from collections.abc import Callable, Sequence

from quorum.domain.tools import RiskAssessment, RiskLevel

_SEPARATORS = frozenset({";", "&&", "||", "|", "|&", "&", ";;"})
_SAFE_REDIRECT_TARGETS = frozenset({"/dev/null"})


def _high(reason: str) -> RiskAssessment:
    return RiskAssessment(level=RiskLevel.HIGH, reason=reason)


def _short_flags(args: Sequence[str]) -> set[str]:
    """Letters of single-dash option clusters (``-uo`` → {u, o}); stops at ``--``."""
    letters: set[str] = set()
    for arg in args:
        if arg == "--":
            break
        if arg.startswith("-") and not arg.startswith("--") and len(arg) > 1:
            letters.update(arg[1:])
    return letters


def _long_flag(args: Sequence[str], names: Sequence[str]) -> str | None:
    for arg in args:
        if arg == "--":
            return None
        for name in names:
            if arg == name or arg.startswith(name + "="):
                return name
    return None


Rule = Callable[[Sequence[str]], str | None]
"""Given a program's arguments, a reason the call is not read-only, or None."""


def _no_options(short: str = "", long: Sequence[str] = ()) -> Rule:
    def rule(args: Sequence[str]) -> str | None:
        found = _long_flag(args, long)
        if found:
            return f"option {found} writes or runs something"
        bad = _short_flags(args) & set(short)
        if bad:
            return f"option -{sorted(bad)[0]} writes or runs something"
        return None

    return rule


_FIND_ACTIONS = ("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls")


def _find_rule(args: Sequence[str]) -> str | None:
    for arg in args:
        if arg in _FIND_ACTIONS:
            return f"find {arg} runs commands or writes files"
    return None


def _uniq_rule(args: Sequence[str]) -> str | None:
    positional = [a for a in args if not a.startswith("-") or a == "-"]
    return "uniq with an output file argument writes it" if len(positional) > 1 else None


def _git_rule(args: Sequence[str]) -> str | None:
    rest = list(args)
    while rest and rest[0] == "--no-pager":
        rest.pop(0)
    if not rest:
        return None
    if rest[0].startswith("-"):
        return f"git global option {rest[0]} can change what git runs"
    sub, sub_args = rest[0], rest[1:]
    if _long_flag(sub_args, ("--output", "--open-files-in-pager", "--ext-diff")):
        return f"git {sub} with an option that writes files or runs programs"
    if sub in _GIT_READ_ONLY:
        if sub == "grep" and "O" in _short_flags(sub_args):
            return "git grep -O opens a pager program"
        return None
    if sub == "branch":
        flags_ok = {"a", "r", "v", "l"}
        positional = [a for a in sub_args if not a.startswith("-")]
        long_ok = {"--list", "--all", "--remotes", "--verbose", "--show-current", "--no-color", "--color"}
        longs = [a.split("=")[0] for a in sub_args if a.startswith("--")]
        if _short_flags(sub_args) - flags_ok or any(a not in long_ok for a in longs):
            return "git branch with an option that changes branches"
        if positional and not (_short_flags(sub_args) & {"l"} or "--list" in longs):
            return "git branch NAME creates a branch"
        return None
    if sub == "tag":
        longs = [a.split("=")[0] for a in sub_args if a.startswith("--")]
        listing = "l" in _short_flags(sub_args) or "--list" in longs
        if not sub_args or (listing and not (_short_flags(sub_args) - {"l", "n"})):
            return None
        return "git tag with arguments creates or deletes tags"
    if sub == "remote":
        return None if sub_args in ([], ["-v"], ["--verbose"]) else "git remote with arguments changes remotes"
    if sub == "stash":
        return None if sub_args[:1] == ["list"] else "git stash changes the work tree"
    return f"git {sub} is not a read-only git command"


_GIT_READ_ONLY = frozenset(
    {"status", "log", "diff", "show", "rev-parse", "ls-files", "blame", "grep", "shortlog", "describe"}
)

_ALLOWED: dict[str, Rule | None] = {
    "ls": None,
    "pwd": None,
    "cd": None,
    "echo": None,
    "printf": _no_options(short="v"),
    "cat": None,
    "head": None,
    "tail": None,
    "wc": None,
    "nl": None,
    "grep": None,
    "egrep": None,
    "fgrep": None,
    "rg": _no_options(long=("--pre", "--pre-glob")),
    "find": _find_rule,
    "stat": None,
    "file": _no_options(short="C", long=("--compile",)),
    "tree": _no_options(short="o"),
    "realpath": None,
    "dirname": None,
    "basename": None,
    "du": None,
    "df": None,
    "which": None,
    "whoami": None,
    "id": None,
    "uname": None,
    "printenv": None,
    "date": _no_options(short="s", long=("--set",)),
    "sort": _no_options(short="o", long=("--output", "--compress-program")),
    "uniq": _uniq_rule,
    "cut": None,
    "tr": None,
    "diff": _no_options(long=("--output",)),
    "cmp": None,
    "comm": None,
    "jq": None,
    "md5sum": None,
    "sha256sum": None,
    "true": None,
    "false": None,
    "test": None,
    "[": None,
    "git": _git_rule,
}
"""Read-only programs and, for those with writing or executing options, the rule that catches them."""


def _tokens(command: str) -> list[str]:
    lexer = shlex.shlex(command, posix=True, punctuation_chars=True)
    lexer.whitespace_split = True
    lexer.commenters = ""  # the shell only starts comments at word starts; keeping '#' errs high
    return list(lexer)


def _segments(tokens: list[str]) -> tuple[list[list[str]], str | None]:
    """Split at separators, dropping safe redirections; the second item is a reason to refuse."""
    segments: list[list[str]] = [[]]
    i = 0
    while i < len(tokens):
        token = tokens[i]
        if token in _SEPARATORS:
            segments.append([])
        elif token[0] in "();<>|&":
            if "(" in token or ")" in token:
                return [], "subshells, groups and process substitution are not read-only"
            target = tokens[i + 1] if i + 1 < len(tokens) else ""
            if token in (">&", "<&") and target.isdigit():
                if segments[-1] and segments[-1][-1].isdigit():
                    segments[-1].pop()  # the "2" of "2>&1"
                i += 2
                continue
            if token in (">", ">>", "&>", ">|") and target in _SAFE_REDIRECT_TARGETS:
                if segments[-1] and segments[-1][-1].isdigit():
                    segments[-1].pop()
                i += 2
                continue
            if token == "<" and target and target[0] not in "();<>|&":
                i += 2  # reading a file into stdin does not write anything
                continue
            if ">" in token:
                return [], f"output redirection ({token}) writes a file"
            return [], f"shell operator {token!r} is not allowed in a read-only command"
        else:
            segments[-1].append(token)
        i += 1
    return [s for s in segments if s], None


def _outside_workspace(word: str) -> bool:
    """Whether ``word`` (or the value of ``--opt=value``) names a path outside the workspace."""
    value = word.split("=", 1)[1] if word.startswith("-") and "=" in word else word
    if value in _SAFE_REDIRECT_TARGETS:
        return False
    return value.startswith(("/", "~")) or ".." in value.split("/")


def _judge_segment(words: list[str]) -> str | None:
    program, args = words[0], words[1:]
    outside = next((w for w in args if _outside_workspace(w)), None)
    if outside is not None and program in _ALLOWED:
        return f"{outside!r} reaches outside the workspace"
    if "=" in program and not program.startswith("="):
        return f"environment assignment {program.split('=')[0]}=… can change what runs"
    if "/" in program:
        return f"{program!r} names a program by path"
    if program not in _ALLOWED:
        return f"{program!r} is not on the read-only allow-list"
    rule = _ALLOWED[program]
    return rule(args) if rule is not None else None


def classify_command(command: str) -> RiskAssessment:
    """The risk of running ``command`` with ``sh -c``, with the reason shown to reviewers."""
    text = command.strip()
    if not text:
        return RiskAssessment(level=RiskLevel.LOW, reason="empty command")
    if "\n" in text or "\r" in text:
        return _high("multi-line commands are reviewed")
    if "`" in text or "$(" in text:
        return _high("command substitution runs another command")
    try:
        tokens = _tokens(text)
    except ValueError as error:
        return _high(f"the command could not be parsed ({error})")
    segments, refusal = _segments(tokens)
    if refusal:
        return _high(refusal)
    programs: list[str] = []
    for words in segments:
        reason = _judge_segment(words)
        if reason:
            return _high(reason)
        programs.append(words[0] if words[0] != "git" or len(words) < 2 else f"git {words[1]}")
    return RiskAssessment(level=RiskLevel.LOW, reason=f"read-only command ({', '.join(dict.fromkeys(programs))})")
