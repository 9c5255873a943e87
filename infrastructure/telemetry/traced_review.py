"""A reviewer tracing each review of a call as a ``quorum.review {tool}`` span, made current.

The GenAI conventions have no guardrail operation yet (semconv 1.44.0), so the span and its
attributes are Quorum's own. Current, so each reviewer model's request is a ``chat`` span under it.
"""

from __future__ import annotations

from typing import Any

from quorum.application.ports.reviewer import CallReviewer, ReviewContext
from quorum.domain.policy import PolicyRule
from quorum.domain.review import ReviewDecision, Verdict
from quorum.domain.tools import ToolCall, ToolDefinition
from quorum.infrastructure.telemetry import names
from quorum.infrastructure.telemetry.core import Telemetry

_DECIDED_BY = {"quorum": "panel"}  # the vocabulary: policy, panel, human, auto


class TracedReviewer:
    """``CallReviewer`` around ``inner``: ``screen`` as it is, ``review`` in a span."""

    def __init__(self, inner: CallReviewer, telemetry: Telemetry) -> None:
        self._inner = inner
        self._telemetry = telemetry

    def screen(self, call: ToolCall, tool: ToolDefinition) -> PolicyRule | None:
        return self._inner.screen(call, tool)

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        t = self._telemetry
        attributes = {
            names.TOOL_NAME: call.name,
            names.TOOL_CALL_ID: call.native_id,
            names.TOOL_RISK: context.risk.value,
        }
        with t.current_span(f"{names.REVIEW} {call.name}", attributes) as span:
            decision = await self._inner.review(call, context)
            span.set_attributes(decision_attributes(decision))
            if t.capture_content and decision.reason:
                span.set_attribute(names.REVIEW_REASON, t.text(decision.reason))
        return decision

    def __getattr__(self, name: str) -> Any:
        return getattr(self._inner, name)


def decision_attributes(decision: ReviewDecision) -> dict[str, Any]:
    """``quorum.review.*`` of ``decision``: the outcome, who decided, the votes (``reviewer=verdict``)."""
    outcome = "deferred" if decision.deferred else "approved" if decision.approved else "rejected"
    attributes: dict[str, Any] = {
        names.REVIEW_DECISION: outcome,
        names.REVIEW_DECIDED_BY: _DECIDED_BY.get(decision.decided_by, decision.decided_by),
        names.REVIEW_VOTES: [f"{vote.reviewer}={vote.verdict.value}" for vote in decision.votes],
        names.REVIEW_APPROVALS: sum(vote.verdict is Verdict.APPROVE for vote in decision.votes),
        names.REVIEW_REJECTIONS: sum(vote.verdict is Verdict.REJECT for vote in decision.votes),
    }
    if decision.rule:
        attributes[names.REVIEW_RULE] = decision.rule
    return attributes
