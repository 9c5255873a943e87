"""Quorum as a Python library: ``Agent``, ``@tool``, reviews, and the run events.

::

    from quorum import Agent, tool

    @tool(risk="low")
    def lookup(key: str) -> str:
        '''Look a key up.'''
        return {"a": "1"}.get(key, "?")

    async with Agent("openai:gpt-4.1-mini", tools=[lookup]) as agent:
        result = await agent.run("What is a?")

Names are imported on first use (PEP 562), so ``import quorum`` loads nothing heavy. The layers
(``quorum.domain``, ``quorum.application``, ``quorum.infrastructure``), the composition every
driver sits on (``quorum.composition``) and the CLI (``quorum.cli``) are subpackages of this package.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quorum.agent import Agent
    from quorum.application.use_cases.undo_run import UndoPlan, UndoResult, UndoStep
    from quorum.domain.elicitation import ElicitationAnswer, ElicitationRequest
    from quorum.domain.errors import UndoConflict
    from quorum.domain.events import RunEvent
    from quorum.domain.policy import PolicyRule
    from quorum.infrastructure.tools.functions.tool import Tool, tool
    from quorum.infrastructure.tools.functions.tool_context import ToolContext
    from quorum.review import Decision, Review, ReviewRequest
    from quorum.run_result import RunResult

_EXPORTS = {
    "Agent": "quorum.agent",
    "RunResult": "quorum.run_result",
    "Review": "quorum.review",
    "ReviewRequest": "quorum.review",
    "Decision": "quorum.review",
    "tool": "quorum.infrastructure.tools.functions.tool",
    "Tool": "quorum.infrastructure.tools.functions.tool",
    "ToolContext": "quorum.infrastructure.tools.functions.tool_context",
    "PolicyRule": "quorum.domain.policy",
    "RunEvent": "quorum.domain.events",
    "ElicitationRequest": "quorum.domain.elicitation",
    "ElicitationAnswer": "quorum.domain.elicitation",
    "UndoResult": "quorum.application.use_cases.undo_run",
    "UndoPlan": "quorum.application.use_cases.undo_run",
    "UndoStep": "quorum.application.use_cases.undo_run",
    "UndoConflict": "quorum.domain.errors",
}

__all__ = [
    "Agent",
    "Decision",
    "ElicitationAnswer",
    "ElicitationRequest",
    "PolicyRule",
    "Review",
    "ReviewRequest",
    "RunEvent",
    "RunResult",
    "Tool",
    "ToolContext",
    "UndoConflict",
    "UndoPlan",
    "UndoResult",
    "UndoStep",
    "tool",
]


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'quorum' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_EXPORTS})
