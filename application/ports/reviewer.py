"""Port deciding whether a high-risk call may run."""

from __future__ import annotations

from typing import Protocol

from pydantic import BaseModel, ConfigDict

from quorum.domain.review import ReviewDecision
from quorum.domain.tools import RiskLevel, ToolCall, ToolDefinition


class ReviewContext(BaseModel):
    """What a reviewer may know about the call beyond the call itself."""

    model_config = ConfigDict(frozen=True)

    run_id: str
    task: str
    tool: ToolDefinition
    risk: RiskLevel
    risk_reason: str = ""
    assistant_text: str = ""


class ActionReviewer(Protocol):
    """Reviews one high-risk call at a time; the run executes the call only if approved."""

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        """Decide on ``call``. Must not raise for reviewer failures: fail closed with a rejection."""
        ...
