"""The rows every driver lists tools with (``quorum tools list --json``, ``GET /v1/tools``)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quorum.infrastructure.tools.executor import ListedTool


def tool_row(tool: ListedTool, sandbox: str) -> dict[str, Any]:
    """One listing row; ``run_command``'s also says how it runs (``sandbox``).

    ``risk`` is the tool's default risk; ``per_call_risk`` says some of its calls are low risk.
    """
    row: dict[str, Any] = {
        "name": tool.definition.name,
        "risk": tool.definition.risk.value,
        "source": tool.origin,
        "description": tool.definition.description,
        "per_call_risk": tool.definition.per_call_risk,
    }
    if tool.definition.name == "run_command" and tool.source == "builtin":
        row["sandbox"] = sandbox
    return row
