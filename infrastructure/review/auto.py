"""AutoReviewer: decides every call the same way without asking anyone (``--yes`` or a fixed mode)."""

from __future__ import annotations

from quorum.application.ports.reviewer import ReviewContext
from quorum.domain.review import ReviewDecision
from quorum.domain.tools import ToolCall


class AutoReviewer:
    """Approves (or rejects) every call, ``decided_by="auto"``, with ``reason``."""

    def __init__(self, approve: bool, reason: str = "") -> None:
        self.approve = approve
        self.reason = reason or ("auto-approved" if approve else "auto-rejected")

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        return ReviewDecision(approved=self.approve, decided_by="auto", reason=self.reason)
