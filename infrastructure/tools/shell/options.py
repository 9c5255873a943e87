"""Option matching the way GNU ``getopt_long`` and git's parse-options read options, erring wide.

Both accept any unambiguous prefix of a long option (``sort --out=F`` is ``--output=F``), and
git accepts ``--no-`` forms; a short option may carry its value attached (``-f/etc/x``) or inside a
cluster (``-uo F``). A ``--`` may itself be an option's value (``sort -T -- -o F``), so scanning
never stops there. The helpers here therefore report a dangerous option whenever *any* reading
could make it one; the cost of a wrong match is a review, never an unreviewed write.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

Rule = Callable[[Sequence[str]], str | None]
"""Given a program's arguments (after the program name), why the call is not read-only, or None."""


def long_option_match(arg: str, dangerous: Iterable[str]) -> str | None:
    """The dangerous long option (without ``--``) that ``arg`` may spell, or None.

    ``arg`` matches when its name (before any ``=``), or that name without a ``no-`` prefix, is a
    non-empty prefix of a dangerous name: ``--outp=F`` matches ``output``, ``--no-i`` ``no-index``.
    """
    if not arg.startswith("--") or arg == "--":
        return None
    name = arg[2:].split("=", 1)[0]
    spellings = [name, name[3:]] if name.startswith("no-") else [name]
    for option in dangerous:
        if any(spelling and option.startswith(spelling) for spelling in spellings):
            return option
    return None


def short_option_letters(arg: str) -> str:
    """The letters of a single-dash cluster (``-uo`` → ``uo``); '' for anything else."""
    return arg[1:] if arg.startswith("-") and not arg.startswith("--") else ""


def dangerous_option(args: Sequence[str], short: str = "", long: Iterable[str] = ()) -> str | None:
    """The first argument that is, or may be read as, one of the ``short`` or ``long`` options."""
    long = tuple(long)
    for arg in args:
        if (found := long_option_match(arg, long)) is not None:
            return f"--{found}" if arg.split("=", 1)[0] == f"--{found}" else f"{arg.split('=', 1)[0]} (--{found})"
        letters = short_option_letters(arg)
        if bad := sorted(set(letters) & set(short)):
            return f"-{bad[0]}"
    return None


def no_options(short: str = "", long: Iterable[str] = (), what: str = "writes or runs something") -> Rule:
    """A rule refusing the given short letters and long options (prefixes included)."""
    long = tuple(long)

    def rule(args: Sequence[str]) -> str | None:
        found = dangerous_option(args, short, long)
        return f"option {found} {what}" if found else None

    return rule


def operands(args: Sequence[str]) -> list[str]:
    """Arguments that do not look like options (``-`` alone is an operand: standard input)."""
    return [arg for arg in args if not arg.startswith("-") or arg == "-"]
