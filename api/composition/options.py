"""What a driver asks of the composition: the options of one invocation (a command, an ``Agent``)."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class AppOptions:
    """Options common to commands.

    Attributes:
        config_path: ``--config PATH``.
        overrides: config values set by flags (the last layer), e.g. ``{"agent": {"max_tool_turns": 3}}``.
        yes: ``--yes``: approve high-risk calls without asking.
        json: ``--json``: machine output on stdout; no human prompts.
        no_log: ``--no-log``: do not record this run.
        interactive: a human can be asked (stdin is a terminal and not ``--json``).
    """

    config_path: Path | None = None
    overrides: dict[str, Any] = field(default_factory=dict)
    yes: bool = False
    json: bool = False
    no_log: bool = False
    interactive: bool = False
