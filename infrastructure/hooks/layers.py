"""The hooks of every configuration layer, each with the file it comes from.

Hooks add up across layers (the user's, each workspace file's, ``--config``'s): a workspace's
``[[hooks.pre_tool_use]]`` never replaces the user's, as a merged array would. A workspace file
that is not trusted has no ``hooks`` left by the time its layer is read (``config.trust``
drops them); ``untrusted_hooks`` lists what was dropped, for ``quorum hooks list``.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pydantic import ValidationError

from quorum.application.ports.hooks import HOOK_EVENTS, HookEvent
from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.config.errors import validation_lines
from quorum.infrastructure.config.layers import Layer
from quorum.infrastructure.config.loader import LOCAL_CONFIG, RawConfig
from quorum.infrastructure.hooks.settings import HooksSettings


@dataclass(frozen=True)
class ConfiguredHook:
    """One configured hook: its event, command, matcher, timeout and the file that set it."""

    event: HookEvent
    command: str
    matcher: str | None
    timeout: float
    source: str
    pattern: re.Pattern[str] | None = field(default=None, compare=False, repr=False)

    def names(self, tool_name: str | None) -> bool:
        """Whether the hook runs for ``tool_name`` (no matcher, or no tool: always)."""
        return self.pattern is None or tool_name is None or self.pattern.search(tool_name) is not None


def configured_hooks(raw: RawConfig) -> tuple[ConfiguredHook, ...]:
    """Every hook of ``raw``'s layers, farthest layer first, in each file's order.

    Raises:
        ConfigurationError: a layer's ``[hooks]`` is invalid (naming the file and the key).
    """
    hooks: list[ConfiguredHook] = []
    # A RawConfig made without its layers (merged by its maker) has its hooks in the merged data:
    # read there, never dropped (a configured hook left out would be a call let through).
    layers = raw.layers or (Layer(raw.source_of("hooks") or "configuration", raw.data),)
    for layer in layers:
        table = layer.data.get("hooks")
        if table is None:
            continue
        try:
            settings = HooksSettings.model_validate(table)
        except ValidationError as error:
            lines = validation_lines(error, HooksSettings, prefix=("hooks",), source_of=_from(layer.label))
            raise ConfigurationError("\n".join(lines)) from None
        source = str(raw.workspace / layer.label) if layer.label == LOCAL_CONFIG and raw.workspace else layer.label
        for event in HOOK_EVENTS:
            for hook in getattr(settings, event):
                pattern = re.compile(hook.matcher) if hook.matcher is not None else None
                hooks.append(ConfiguredHook(event, hook.command, hook.matcher, hook.timeout, source, pattern))
    return tuple(hooks)


def _from(label: str) -> Callable[[str], str | None]:
    """Every key's source is ``label`` (errors of one layer's ``[hooks]`` name its file)."""
    return lambda _key: label


def untrusted_hooks(raw: RawConfig) -> list[tuple[str, str]]:
    """(event, command) of each hook an untrusted workspace file set, left out of the configuration."""
    dropped: list[tuple[str, str]] = []
    for finding in raw.untrusted:
        if finding.path != "hooks" or not isinstance(finding.value, dict):
            continue
        for event, tables in finding.value.items():
            for table in tables if isinstance(tables, list) else [tables]:
                command: Any = table.get("command") if isinstance(table, dict) else None
                dropped.append((str(event), str(command)))
    return dropped
