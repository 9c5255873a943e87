"""Workspace trust: the keys a workspace's configuration file may set only once the workspace is trusted.

A file found in the workspace (its ``quorum.toml`` and its parents' up to the repository root:
``quorum.infrastructure.config.workspace``) comes with the repository, so whoever wrote the
repository wrote it. It may add instructions and tighten review; a key that **runs a program**,
**loosens review** or **sends data or keys elsewhere** takes effect only for a trusted workspace
(``quorum trust``; docs/decisions/200-workspace-trust.md says why each key is here).

``RESTRICTED`` is the list as data: one ``Restricted`` per key path, ``*`` standing for any one
name (``mcp.servers.*.command``). A key whose value is one a workspace may always set (a stricter
``hil_mode``, a stronger sandbox) has a ``safe`` test and stays. Adding a key is one line.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from quorum.infrastructure.config.layers import drop_path

RUNS = "runs a program"
LOOSENS = "loosens review"
SENDS = "sends data or keys elsewhere"


@dataclass(frozen=True)
class Restricted:
    """A key a workspace file sets only when trusted.

    Attributes:
        path: dotted key path; ``*`` matches any one name. A table path covers all its keys.
        why: ``RUNS``, ``LOOSENS`` or ``SENDS``.
        safe: values a workspace may set untrusted (called with the value and the file's
            directory); None: no value is safe.
        table: drop the table holding the key, not only the key (an MCP server without its
            ``command`` is no server: its other keys would only make it invalid).
    """

    path: str
    why: str
    safe: Callable[[Any, Path], bool] | None = None
    table: bool = False


def _one_of(*values: Any) -> Callable[[Any, Path], bool]:
    return lambda value, _base: value in values


def _no_allow_rule(rules: Any, _base: Path) -> bool:
    return isinstance(rules, list) and not any(isinstance(r, dict) and r.get("decision") == "allow" for r in rules)


def _all_high(risks: Any, _base: Path) -> bool:
    return isinstance(risks, dict) and all(level == "high" for level in risks.values())


def _inside(path: Any, base: Path) -> bool:
    if not isinstance(path, str) or path.startswith("~"):
        return False
    resolved = Path(base, path).resolve()
    return resolved == base.resolve() or base.resolve() in resolved.parents


RESTRICTED: tuple[Restricted, ...] = (
    # Programs a workspace would start.
    Restricted("mcp.servers.*.command", RUNS, table=True),
    Restricted("mcp.servers.*.args", RUNS),
    Restricted("mcp.servers.*.env", RUNS),
    Restricted("mcp.servers.*.cwd", RUNS),
    Restricted("hooks", RUNS),  # [[hooks.EVENT]] commands run on a run's events (docs/hooks.md)
    Restricted("tools.command_env", RUNS),  # LD_PRELOAD, PATH, or the user's secrets for commands
    Restricted("tools.sandbox.program", RUNS, _one_of("bwrap")),
    # Review loosened.
    Restricted("review.hil_mode", LOOSENS, _one_of("interactive", "defer", "auto_reject")),
    Restricted("review.rules", LOOSENS, _no_allow_rule),
    Restricted("review.reversible", LOOSENS, _one_of("ask")),  # "auto" skips review of undoable calls
    Restricted("review.reviewers", LOOSENS),  # a panel of the repository's choosing instead of a person
    Restricted("review.rule", LOOSENS),
    Restricted("review.min_votes", LOOSENS),
    Restricted("review.escalate_on_reject", LOOSENS, _one_of(True)),
    Restricted("tools.risk", LOOSENS, _all_high),
    Restricted("tools.workspace", LOOSENS, _inside),
    Restricted("tools.sandbox.mode", LOOSENS, _one_of("auto", "required")),
    Restricted("mcp.servers.*.risk", LOOSENS, _one_of("high")),
    Restricted("mcp.servers.*.sampling", LOOSENS, _one_of("deny", "ask")),
    Restricted("mcp.servers.*.pin", LOOSENS, _one_of(True)),
    # Data or keys sent where the repository chooses.
    Restricted("mcp.servers.*.url", SENDS, table=True),
    Restricted("mcp.servers.*.headers", SENDS),
    Restricted("mcp.servers.*.auth", SENDS),
    Restricted("providers.*.base_url", SENDS),
    Restricted("providers.*.headers", SENDS),
    Restricted("providers.*.api_key", SENDS),  # the repository's account would see every prompt
    Restricted("serve", SENDS),  # host, cors_origins, token, TLS files
    Restricted("telemetry.endpoint", SENDS),
    Restricted("telemetry.headers", SENDS),
    Restricted("storage", SENDS),  # the run log's path or database URL
)
"""Every key a workspace file sets only when trusted (see the module docstring)."""


ADDED: tuple[str, ...] = ("review.rules", "tools.disabled", "plugins.blocked")
"""Arrays an untrusted workspace file adds to instead of replacing: replacing would drop the user's
deny rules, disabled tools and blocked plugins."""


@dataclass(frozen=True)
class Finding:
    """A restricted key set by a file: its dotted path, its value, why it is restricted, what to drop."""

    path: str
    value: Any
    why: str
    table: bool = False


def restricted_in(data: dict[str, Any], base: Path) -> list[Finding]:
    """The restricted keys ``data`` (one file's table) sets with a value not safe untrusted, in file order.

    ``base`` is the file's directory (paths are judged against it).
    """
    found: list[Finding] = []
    for rule in RESTRICTED:
        for path, value in _matches(data, rule.path.split(".")):
            if rule.safe is None or not rule.safe(value, base):
                found.append(Finding(".".join(path), value, rule.why, rule.table))
    return found


def without_restricted(data: dict[str, Any], base: Path) -> tuple[dict[str, Any], list[Finding]]:
    """A copy of ``data`` without its restricted keys (tables left empty removed), and those keys."""
    found = restricted_in(data, base)
    kept = copy.deepcopy(data)
    for finding in found:
        parts = tuple(finding.path.split("."))
        drop_path(kept, parts[:-1] if finding.table else parts)
    return kept, found


def added_to(data: dict[str, Any], earlier: dict[str, Any]) -> dict[str, Any]:
    """``data`` with each ``ADDED`` array it sets following the ``earlier`` layers' (merged) value."""
    for path in ADDED:
        parts = path.split(".")
        mine = [value for _path, value in _matches(data, parts)]
        before = [value for _path, value in _matches(earlier, parts)]
        if mine and before and isinstance(mine[0], list) and isinstance(before[0], list):
            table = data
            for part in parts[:-1]:
                table = table[part]
            table[parts[-1]] = [*before[0], *(item for item in mine[0] if item not in before[0])]
    return data


def _matches(node: Any, parts: list[str], prefix: tuple[str, ...] = ()) -> Iterator[tuple[tuple[str, ...], Any]]:
    if not parts:
        yield prefix, node
        return
    if not isinstance(node, dict):
        return
    names = list(node) if parts[0] == "*" else [parts[0]] if parts[0] in node else []
    for name in names:
        yield from _matches(node[name], parts[1:], (*prefix, name))
