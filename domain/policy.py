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

**Match what will execute, not the string.** A caller may give, per argument, an ``ArgumentView``:
the forms the argument takes when the tool runs it (a path resolved in the workspace; each simple
command of a shell line with its program normalized) and whether those forms show all of it. Then:

- ``deny`` and ``ask`` match when *any* form — or the raw text — matches: ``ls && rm x`` is denied
  by ``rm*``, ``docs/../secrets/x`` by ``secrets/**``.
- ``allow`` matches only when *every* form is matched by some allow rule and every viewed argument
  is complete: ``make test; touch X`` is not allowed by ``make test*``, and a path outside the
  workspace or a command with unsafe redirection or expansion is never allowed by a rule.
"""

from __future__ import annotations

import functools
import itertools
import json
import re
from collections.abc import Iterable, Mapping, Sequence
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


class ArgumentView(BaseModel):
    """What policy rules see of one argument: the forms it takes when executed.

    Attributes:
        forms: the normalized forms (one resolved path; one text per simple command of a shell line).
        complete: False when the forms cannot show everything that will execute or be touched (a
            path outside the workspace; redirection, expansion or substitution in a command): such
            an argument never satisfies an ``allow`` rule.
    """

    model_config = ConfigDict(frozen=True)

    forms: tuple[str, ...]
    complete: bool = True


MAX_ALLOW_COMBINATIONS = 256
"""Beyond this many combinations of forms, no allow rule is tried (the call goes on to review)."""


def first_match(
    rules: Iterable[PolicyRule],
    tool: str,
    arguments: Mapping[str, Any],
    views: Mapping[str, ArgumentView] | None = None,
) -> PolicyRule | None:
    """The rule deciding a call: deny rules first, then ask, then allow; written order within each.

    ``views`` normalizes arguments (see the module doc); without it each argument has one form,
    its text. Returns None when no rule matches (the call goes on to the quorum vote or the human).
    """
    ordered = [r for r in rules if glob_match(r.tool, tool)]
    views = views or {}
    for decision in ("deny", "ask"):
        for rule in ordered:
            if rule.decision == decision and _any_form_matches(rule, arguments, views):
                return rule
    return _allowing_rule([r for r in ordered if r.decision == "allow"], arguments, views)


def _forms(name: str, arguments: Mapping[str, Any], views: Mapping[str, ArgumentView]) -> tuple[str, ...]:
    raw = argument_text(arguments[name])
    view = views.get(name)
    return (raw,) if view is None else (raw, *view.forms)


def _any_form_matches(rule: PolicyRule, arguments: Mapping[str, Any], views: Mapping[str, ArgumentView]) -> bool:
    for name, pattern in rule.match.items():
        if name not in arguments:
            return False
        if not any(glob_match(pattern, form) for form in _forms(name, arguments, views)):
            return False
    return True


def _allowing_rule(
    allows: Sequence[PolicyRule], arguments: Mapping[str, Any], views: Mapping[str, ArgumentView]
) -> PolicyRule | None:
    """The first allow rule used when every combination of forms is covered by some allow rule."""
    if not allows or any(not view.complete for name, view in views.items() if name in arguments):
        return None
    names = sorted({name for rule in allows for name in rule.match if name in arguments})
    options = [views[name].forms if name in views else (argument_text(arguments[name]),) for name in names]
    if any(not forms for forms in options) or _product_size(options) > MAX_ALLOW_COMBINATIONS:
        return None
    used: PolicyRule | None = None
    for combination in itertools.product(*options):
        chosen = dict(zip(names, combination, strict=True))
        rule = next((r for r in allows if _matches_forms(r, arguments, chosen)), None)
        if rule is None:
            return None
        used = used or rule
    return used


def _matches_forms(rule: PolicyRule, arguments: Mapping[str, Any], chosen: Mapping[str, str]) -> bool:
    return all(name in arguments and glob_match(pattern, chosen[name]) for name, pattern in rule.match.items())


def _product_size(options: Sequence[Sequence[str]]) -> int:
    size = 1
    for forms in options:
        size *= len(forms)
    return size
