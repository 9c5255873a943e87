"""``[tools]``: which tools are offered, their risk overrides, output cap and workspace."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field

from quorum.domain.tools import RiskLevel
from quorum.infrastructure.config.sections import Section


class ToolsSettings(Section):
    """``[tools]`` section.

    Attributes:
        workspace: directory tools act in (default: the current directory).
        enabled: name patterns (globs) of tools to offer; empty means all.
        disabled: name patterns of tools never to offer (wins over ``enabled``).
        risk: risk overrides by name pattern, e.g. ``"mcp__time__*" = "low"``.
        output_limit_bytes: cap of one tool output; the rest is cut with a note.
    """

    workspace: Path | None = None
    enabled: list[str] = Field(default_factory=list)
    disabled: list[str] = Field(default_factory=list)
    risk: dict[str, RiskLevel] = Field(default_factory=dict)
    output_limit_bytes: int = Field(50_000, ge=1_000)
