"""Names in the safety settings checked against what exists. Pure: it is told what exists.

A misspelt name in ``[tools] disabled``, ``[tools.risk]``, a ``[[review.rules]]`` table or
``[plugins] blocked`` would otherwise be a setting that silently does nothing, so a name matching
nothing known is a configuration error with a suggestion. Where what exists cannot be known
without starting something (an MCP server never listed, a third-party tool source), the name is
reported as not checked instead.
"""

from __future__ import annotations

import fnmatch
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from quorum.domain.errors import ConfigurationError
from quorum.domain.policy import PolicyRule, glob_match
from quorum.infrastructure.config.errors import did_you_mean
from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.review.settings import ReviewSettings
from quorum.infrastructure.tools.known_tools import KnownTools
from quorum.infrastructure.tools.settings import ToolsSettings

Matcher = Callable[[str, str], bool]
"""(pattern, name) → whether the pattern matches the name."""

_MAX_LISTED = 3


@dataclass(frozen=True)
class NameProblem:
    """A name that means nothing.

    Attributes:
        key: the key path shown (``tools.disabled[0]``).
        origin_key: the key path whose origin (file or layer) is looked up (``tools.disabled``).
        message: what is wrong, with a suggestion when one is close.
    """

    key: str
    origin_key: str
    message: str


@dataclass
class NameReport:
    """What the check found: errors, and names it could not check (reason → keys)."""

    errors: list[NameProblem] = field(default_factory=list)
    unchecked: dict[str, list[str]] = field(default_factory=dict)

    def skip(self, key: str, reasons: Iterable[str]) -> None:
        for reason in reasons:
            keys = self.unchecked.setdefault(reason, [])
            if key not in keys:
                keys.append(key)

    def warnings(self) -> list[str]:
        """One line per reason: the keys not checked and why."""
        return [f"{', '.join(keys)} not checked: {reason}" for reason, keys in self.unchecked.items()]

    def raise_errors(self, source_of: Callable[[str], str | None]) -> None:
        """Raise one ConfigurationError with a ``file: key.path: message`` line per error, if any."""
        if not self.errors:
            return
        lines = []
        for problem in self.errors:
            source = source_of(problem.origin_key)
            lines.append(f"{source + ': ' if source else ''}{problem.key}: {problem.message}")
        raise ConfigurationError("\n".join(lines))


def _fnmatch(pattern: str, name: str) -> bool:
    return fnmatch.fnmatchcase(name, pattern)


def _policy_glob(pattern: str, name: str) -> bool:
    return glob_match(pattern, name)


def check_names(settings: Settings, tools: KnownTools, plugins: Iterable[str]) -> NameReport:
    """Check every tool glob, rule argument name and blocked plugin name of ``settings``.

    Args:
        settings: the validated configuration.
        tools: the tools known now (see ``KnownTools``).
        plugins: every plugin name ``[plugins] blocked`` may list.
    """
    report = NameReport()
    tool_settings = settings.section(ToolsSettings)
    for section, patterns in (("enabled", tool_settings.enabled), ("disabled", tool_settings.disabled)):
        for i, pattern in enumerate(patterns):
            _tool_glob(report, tools, f"tools.{section}[{i}]", f"tools.{section}", pattern, _fnmatch)
    for pattern in tool_settings.risk:
        key = f"tools.risk.{pattern}"
        _tool_glob(report, tools, key, key, pattern, _fnmatch)
    for i, rule in enumerate(settings.section(ReviewSettings).rules):
        _rule(report, tools, i, rule)
    known_plugins = sorted(set(plugins))
    for i, name in enumerate(settings.plugins.blocked):
        if name not in known_plugins:
            hint = did_you_mean(name, known_plugins) or f" (plugins: {', '.join(known_plugins)})"
            report.errors.append(
                NameProblem(f"plugins.blocked[{i}]", "plugins.blocked", f"{name!r} names no plugin{hint}")
            )
    return report


def _tool_glob(
    report: NameReport, tools: KnownTools, key: str, origin_key: str, pattern: str, matches: Matcher
) -> list[str]:
    """The known tools ``pattern`` matches; reports it when there are none."""
    matched = tools.matching(lambda name: matches(pattern, name))
    if matched:
        return matched
    reasons = tools.unknowable(pattern)
    if reasons:
        report.skip(key, reasons)
    else:
        hint = did_you_mean(pattern, tools.names()) or " (see `quorum tools list`)"
        report.errors.append(NameProblem(key, origin_key, f"{pattern!r} matches no tool{hint}"))
    return matched


def _rule(report: NameReport, tools: KnownTools, index: int, rule: PolicyRule) -> None:
    """A rule's tool glob, then its argument names against the tools it matches."""
    where = f"review.rules[{index}]"
    matched = _tool_glob(report, tools, f"{where}.tool", "review.rules", rule.tool, _policy_glob)
    if not matched:
        return
    known = sorted({arg for name in matched for arg in tools.parameters[name] or ()})
    undescribed = [name for name in matched if tools.parameters[name] is None]
    for argument in rule.match:
        if argument in known:
            continue
        key = f"{where}.match.{argument}"
        reasons = [f"the arguments of {name!r} are not known" for name in undescribed]
        reasons += tools.unknowable(rule.tool)
        if reasons:
            report.skip(key, reasons)
            continue
        shown = matched[0] if len(matched) == 1 else f"any tool matching {rule.tool!r}"
        if 1 < len(matched) <= _MAX_LISTED:
            shown += f" ({', '.join(matched)})"
        hint = did_you_mean(argument, known)
        report.errors.append(NameProblem(key, "review.rules", f"{argument!r} is not an argument of {shown}{hint}"))
