"""Which program a simple command really runs, and the commands it runs in turn.

``resolve_program`` looks through wrappers that run their arguments as a command (``env -i X=1 rm``,
``sudo -u me rm``, ``timeout 5 rm``, ``xargs -0 rm``…), skipping each wrapper's own options the way
its option parser would (``-n 5`` and ``-n5`` both take a value). ``shell_script`` finds the script
of ``sh -c``/``bash -lc``/``eval``; ``find_exec_commands`` the commands of ``find -exec … ;``.
All three are pure functions of the argument words; ``syntax`` calls them.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quorum.infrastructure.tools.shell.lexer import tokenize


@dataclass(frozen=True)
class _Wrapper:
    """How a wrapper's own arguments look before the command it runs.

    Attributes:
        short_values: Short options that take a value (``-n 5`` or ``-n5``).
        long_values: Long options that take the next word as their value when written without ``=``.
        operands: Positional words before the command (``timeout``'s duration, ``chroot``'s root).
        assignments: ``NAME=value`` words may come before the command (``env``, ``sudo``).
    """

    short_values: str = ""
    long_values: frozenset[str] = frozenset()
    operands: int = 0
    assignments: bool = False


_WRAPPERS: dict[str, _Wrapper] = {
    "command": _Wrapper(),
    "builtin": _Wrapper(),
    "exec": _Wrapper(short_values="a"),
    "env": _Wrapper("uCSP", frozenset({"unset", "chdir", "split-string"}), assignments=True),
    "nice": _Wrapper("n", frozenset({"adjustment"})),
    "ionice": _Wrapper("cnpPu", frozenset({"class", "classdata", "pid", "pgid", "uid"})),
    "nohup": _Wrapper(),
    "time": _Wrapper("fo", frozenset({"format", "output"})),
    "timeout": _Wrapper("sk", frozenset({"signal", "kill-after"}), operands=1),
    "stdbuf": _Wrapper("ioe", frozenset({"input", "output", "error"})),
    "setsid": _Wrapper(),
    "sudo": _Wrapper(
        "CDghpRrTtUuc",
        frozenset({"close-from", "chdir", "group", "host", "prompt", "chroot", "role", "type", "user"})
        | frozenset({"command-timeout", "other-user", "login-class"}),
        assignments=True,
    ),
    "doas": _Wrapper("uC"),
    "xargs": _Wrapper(
        "adEILnPs",
        frozenset({"arg-file", "delimiter", "max-args", "max-procs", "max-chars", "process-slot-var"}),
    ),
    "chroot": _Wrapper(long_values=frozenset({"userspec", "groups"}), operands=1),
    "busybox": _Wrapper(),
}
"""Programs that run their arguments as a command."""

SHELLS = frozenset({"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "posh", "yash", "rbash"})
_SHELL_LONG_VALUES = frozenset({"--rcfile", "--init-file"})
_FIND_EXEC = frozenset({"-exec", "-execdir", "-ok", "-okdir"})


def basename(word: str) -> str:
    """A program word without its directory (``/bin/rm`` → ``rm``)."""
    return word.rsplit("/", 1)[-1]


def resolve_program(words: Sequence[str]) -> tuple[str, ...]:
    """The argv that really runs, from the normalized program on; empty when there is none.

    Raises:
        ShellSyntaxError: An ``env -S`` string that does not tokenize.
    """
    argv = list(words)
    while argv and (wrapper := _WRAPPERS.get(basename(argv[0]))) is not None:
        argv = _after_options(basename(argv[0]), wrapper, argv[1:])
    if not argv or not basename(argv[0]):
        return ()
    return (basename(argv[0]), *argv[1:])


def _after_options(name: str, wrapper: _Wrapper, args: list[str]) -> list[str]:
    """``args`` without the wrapper's options, operands and assignments: the wrapped command."""
    i = 0
    while i < len(args) and args[i].startswith("-"):
        arg = args[i]
        i += 1
        if arg == "--":
            break
        if arg.startswith("--"):
            option, has_value, value = arg[2:].partition("=")
            if option in wrapper.long_values and not has_value:
                value, i = (args[i] if i < len(args) else ""), i + 1
            if name == "env" and option == "split-string":
                return [*_split(value), *args[i:]]
            continue
        for position, letter in enumerate(arg[1:], start=2):
            if letter in wrapper.short_values:
                value = arg[position:]
                if not value:
                    value, i = (args[i] if i < len(args) else ""), i + 1
                if name == "env" and letter == "S":
                    return [*_split(value), *args[i:]]
                break
    i += wrapper.operands
    while wrapper.assignments and i < len(args) and "=" in args[i] and not args[i].startswith("="):
        i += 1
    return args[i:]


def _split(text: str) -> list[str]:
    """The words of an ``env -S`` string (env splits it with shell-like quoting)."""
    return [token.text for token in tokenize(text) if token.kind == "word"]


def shell_script(argv: Sequence[str]) -> str | None:
    """The script a shell or ``eval`` runs from its arguments (``sh -c SCRIPT``), or None."""
    if not argv:
        return None
    if argv[0] == "eval":
        return " ".join(argv[1:])
    if argv[0] not in SHELLS:
        return None
    run_string, skip_next = False, False
    for arg in argv[1:]:
        if skip_next:
            skip_next = False
        elif arg == "--" or arg == "-":
            return None
        elif arg.startswith("--"):
            skip_next = arg in _SHELL_LONG_VALUES
        elif arg[:1] in ("-", "+") and len(arg) > 1:
            run_string = run_string or (arg[0] == "-" and "c" in arg)
            skip_next = "o" in arg or "O" in arg
        else:
            return arg if run_string else None
    return None


def find_exec_commands(argv: Sequence[str]) -> list[tuple[str, ...]]:
    """The command words of each ``-exec``/``-execdir``/``-ok``/``-okdir`` action of ``find``."""
    if not argv or argv[0] != "find":
        return []
    commands: list[tuple[str, ...]] = []
    i = 1
    while i < len(argv):
        if argv[i] in _FIND_EXEC:
            end = i + 1
            while end < len(argv) and argv[end] not in (";", "+"):
                end += 1
            commands.append(tuple(argv[i + 1 : end]))
            i = end
        i += 1
    return commands


__all__ = ["SHELLS", "basename", "find_exec_commands", "resolve_program", "shell_script"]
