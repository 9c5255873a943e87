"""Policy rules: allow, ask or deny a high-risk call by tool name and argument globs. Pure.

A rule names a tool (exact name or glob) and, optionally, globs over the call's arguments; all of
them must match. Rules are evaluated by decision — every ``deny`` rule first, then ``ask``, then
``allow`` — and within a decision in the order written; the first rule that matches wins. So a
``deny`` can never be shadowed by a broader ``allow`` written above it.

Glob syntax (``compile_glob``):

- ``**`` matches any run of characters, ``/`` included.
- ``*`` matches any run of characters except ``/`` — but only when the pattern itself contains a
  ``/`` (a path pattern such as ``docs/*.md``). In a pattern without ``/`` (``git push*``,
  ``mcp__github__*``) there is no path to respect and ``*`` matches anything, so a deny rule on
  ``rm -rf*`` also catches ``rm -rf /``.
- ``?`` matches one character (not ``/`` in path patterns); ``[abc]``, ``[a-z]``, ``[!abc]`` match
  one character of (or not of) a set.
- Everything else matches itself; matching is case-sensitive and covers the whole value.

Argument values that are not strings are matched against their compact JSON text (``true``,
``42``, ``["a", "b"]``); a rule whose ``match`` names an argument the call lacks does not match.
"""

from __future__ import annotations

import functools
import json
import re
from collections.abc import Iterable, Mapping
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field, field_validator

PolicyDecision = Literal["allow", "ask", "deny"]

DECISION_ORDER: tuple[PolicyDecision, ...] = ("deny", "ask", "allow")
"""The order in which rules are tried, by decision."""


class GlobError(ValueError):
    """A glob pattern is malformed (empty, an unclosed ``[``, ``***``)."""


@functools.lru_cache(maxsize=512)
def compile_glob(pattern: str) -> re.Pattern[str]:
    """The regular expression matching exactly the strings ``pattern`` matches (see module doc).

    Raises:
        GlobError: when the pattern is malformed.
    """
    if not pattern:
        raise GlobError("empty pattern")
    if "***" in pattern:
        raise GlobError(f"{pattern!r}: '***' is ambiguous; use '**'")
    path_like = "/" in pattern
    one = "[^/]" if path_like else "."
    parts: list[str] = []
    i = 0
    while i < len(pattern):
        ch = pattern[i]
        if pattern.startswith("**", i):
            parts.append(".*")
            i += 2
        elif ch == "*":
            parts.append(one + "*")
            i += 1
        elif ch == "?":
            parts.append(one)
            i += 1
        elif ch == "[":
            end, chars = _char_class(pattern, i, path_like)
            parts.append(chars)
            i = end
        else:
            parts.append(re.escape(ch))
            i += 1
    return re.compile("".join(parts), re.DOTALL)


def _char_class(pattern: str, start: int, path_like: bool) -> tuple[int, str]:
    """Translate the ``[...]`` set starting at ``start``; returns (index after it, regex)."""
    i = start + 1
    negate = i < len(pattern) and pattern[i] == "!"
    if negate:
        i += 1
    body_start = i
    if i < len(pattern) and pattern[i] == "]":  # a leading ']' is a literal member
        i += 1
    while i < len(pattern) and pattern[i] != "]":
        i += 1
    if i >= len(pattern):
        raise GlobError(f"{pattern!r}: '[' at position {start} is never closed")
    body = pattern[body_start:i]  # never empty: a leading ']' is a member
    escaped = "".join("\\" + c if c in "\\^[]" else c for c in body)
    if negate:  # a negated set never matches '/' in a path pattern, as '?' and '*' do not
        return i + 1, f"[^{escaped}{'/' if path_like else ''}]"
    return i + 1, f"[{escaped}]"


def glob_match(pattern: str, value: str) -> bool:
    """Whether ``value`` matches ``pattern`` as a whole. Raises GlobError for a malformed pattern."""
    return compile_glob(pattern).fullmatch(value) is not None


def argument_text(value: Any) -> str:
    """The text an argument glob is matched against: strings as they are, anything else as JSON."""
    if isinstance(value, str):
        return value
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


class PolicyRule(BaseModel):
    """One ``[[review.rules]]`` table.

    Attributes:
        decision: ``allow`` approves without a vote, ``ask`` sends the call to a human, ``deny``
            rejects it at once.
        tool: the tool name, or a glob over tool names (``mcp__github__*``).
        match: argument name → glob over that argument's value; every entry must match.
        reason: shown to the model and the user when the rule decides.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    decision: PolicyDecision
    tool: str = Field(min_length=1)
    match: dict[str, str] = Field(default_factory=dict)
    reason: str = ""

    @field_validator("tool")
    @classmethod
    def _tool_glob(cls, value: str) -> str:
        _check_glob(value)
        return value

    @field_validator("match")
    @classmethod
    def _argument_globs(cls, value: dict[str, str]) -> dict[str, str]:
        for name, pattern in value.items():
            if not name:
                raise ValueError("match: argument names must not be empty")
            try:
                compile_glob(pattern)
            except GlobError as error:
                raise ValueError(f"match.{name}: {error}") from None
        return value

    def matches(self, tool: str, arguments: Mapping[str, Any]) -> bool:
        """Whether this rule applies to a call of ``tool`` with ``arguments``."""
        if not glob_match(self.tool, tool):
            return False
        for name, pattern in self.match.items():
            if name not in arguments or not glob_match(pattern, argument_text(arguments[name])):
                return False
        return True

    def describe(self) -> str:
        """A short human form, e.g. ``deny run_command {command = "git push*"}``."""
        where = ", ".join(f"{k} = {json.dumps(v)}" for k, v in self.match.items())
        return f"{self.decision} {self.tool}" + (f" {{{where}}}" if where else "")


def _check_glob(pattern: str) -> None:
    try:
        compile_glob(pattern)
    except GlobError as error:
        raise ValueError(str(error)) from None


def first_match(rules: Iterable[PolicyRule], tool: str, arguments: Mapping[str, Any]) -> PolicyRule | None:
    """The rule deciding a call: deny rules first, then ask, then allow; written order within each.

    Returns None when no rule matches (the call goes on to the quorum vote or the human).
    """
    ordered = list(rules)
    for decision in DECISION_ORDER:
        for rule in ordered:
            if rule.decision == decision and rule.matches(tool, arguments):
                return rule
    return None
