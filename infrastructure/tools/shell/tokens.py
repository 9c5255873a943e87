"""A shell token, and how the characters of a word (each quoted or not) become one.

The lexer (``lexer``) records, for every character of a word, whether it was quoted; that
is what decides whether ``*`` globs, ``{a,b}`` multiplies, and ``NAME=`` assigns.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

NAME_START = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz_")
NAME_CHARS = NAME_START | frozenset("0123456789")
_PATTERN_SPECIAL = frozenset("*?[]\\")


@dataclass(frozen=True)
class Token:
    """One word, operator or newline.

    Attributes:
        kind: ``word``, ``operator`` or ``newline``.
        text: The word after quote removal (expansions verbatim), or the operator.
        quoted: Whether any part of the word was quoted or escaped (so it is never a reserved word).
        fd: For a redirection operator, the file descriptor number written right before it (``2>``).
        pattern: For a word with an unquoted ``*``, ``?`` or ``[…]``, the glob pattern the shell would
            expand, quoted special characters escaped with a backslash; otherwise None.
        expansion: A ``$`` outside single quotes (parameter, arithmetic, substitution, ``$'…'``).
        braces: An unquoted ``{…}`` holding ``,`` or ``..`` (bash brace expansion).
        assignment: The word is ``NAME=value`` with an unquoted name.
        substitutions: Token lists of the ``$(…)``, backtick and ``<(…)`` bodies inside the word.
    """

    kind: Literal["word", "operator", "newline"]
    text: str
    quoted: bool = False
    fd: int | None = None
    pattern: str | None = None
    expansion: bool = False
    braces: bool = False
    assignment: bool = False
    substitutions: tuple[tuple[Token, ...], ...] = ()


def make_word(
    chars: list[tuple[str, bool]], quoted: bool, expansion: bool, subs: tuple[tuple[Token, ...], ...]
) -> Token:
    """The word token for ``chars``, each a character and whether it was quoted (or came from an expansion)."""
    text = "".join(c for c, _ in chars)
    globbing = any(c in "*?" and not q for c, q in chars) or _has_bracket(chars)
    pattern = "".join("\\" + c if q and c in _PATTERN_SPECIAL else c for c, q in chars) if globbing else None
    equals = next((i for i, (c, q) in enumerate(chars) if c == "=" and not q), -1)
    name = chars[:equals] if equals > 0 else []
    assignment = bool(name) and name[0][0] in NAME_START and all(c in NAME_CHARS and not q for c, q in name)
    return Token(
        "word",
        text,
        quoted=quoted,
        pattern=pattern,
        expansion=expansion,
        braces=_has_brace_expansion(chars),
        assignment=assignment,
        substitutions=subs,
    )


def _has_bracket(chars: list[tuple[str, bool]]) -> bool:
    """Whether an unquoted ``[`` may open a bracket expression: a ``]`` follows it in the word.

    Without a closing ``]`` the shell takes ``[`` literally (the ``[`` of ``[ -f a ]``). Any later
    ``]``, quoted or not, counts, so this may say yes where the shell would not, never the reverse.
    """
    opening = next((i for i, (c, q) in enumerate(chars) if c == "[" and not q), -1)
    return opening >= 0 and any(c == "]" for c, _ in chars[opening + 1 :])


def _has_brace_expansion(chars: list[tuple[str, bool]]) -> bool:
    """Whether an unquoted ``{`` is closed by an unquoted ``}`` with ``,`` or ``..`` in between."""
    unquoted = "".join(c if not q else "\0" for c, q in chars)
    start = unquoted.find("{")
    while start >= 0:
        end = unquoted.find("}", start)
        if end < 0:
            return False
        inside = unquoted[start + 1 : end]
        if "," in inside or ".." in inside:
            return True
        start = unquoted.find("{", start + 1)
    return False
