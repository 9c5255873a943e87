"""``screen_call``: the policy rules' step before a review, shared by the run and ``review-check``."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from quorum.application.ports.reviewer import ReviewContext
from quorum.application.review_gate import ReviewGate, Screening, rule_decision, screen_call
from quorum.domain.policy import PolicyRule
from quorum.domain.review import ReviewDecision, Vote
from quorum.domain.tools import RiskAssessment, RiskLevel, ToolCall, ToolDefinition

RULES = [
    PolicyRule(decision="deny", tool="*", match={"path": "secret/**"}, reason="never touch secrets"),
    PolicyRule(decision="ask", tool="read_file", match={"path": "src/**"}),
    PolicyRule(decision="allow", tool="write_file", match={"path": "docs/**"}),
]
LOW = RiskAssessment(level=RiskLevel.LOW, reason="reads a file")
HIGH = RiskAssessment(level=RiskLevel.HIGH, reason="writes a file")


class NobodyAsked:
    """A human step the screening must never reach."""

    async def decide(
        self, call: ToolCall, context: ReviewContext, *, why: str, votes: Sequence[Vote] = ()
    ) -> ReviewDecision:
        raise AssertionError("screening asked a person")


def screened(tool: str, path: str, risk: RiskAssessment) -> Screening:
    gate = ReviewGate(rules=RULES, human=NobodyAsked())
    call = ToolCall(native_id="c", name=tool, arguments={"path": path})
    return screen_call(gate, call, ToolDefinition(name=tool), risk)


@pytest.mark.parametrize("risk", [LOW, HIGH])
def test_a_deny_rule_rejects_any_call_before_review(risk: RiskAssessment) -> None:
    screening = screened("read_file", "secret/key.pem", risk)
    assert screening.rule == RULES[0] and screening.denial == rule_decision(RULES[0])
    assert screening.denial.approved is False and screening.denial.decided_by == "policy"
    assert not screening.reviewed and screening.risk == risk


def test_an_ask_rule_sends_a_low_risk_call_to_review_and_says_why() -> None:
    screening = screened("read_file", "src/app.py", LOW)
    assert screening.denial is None and screening.reviewed
    assert screening.risk.level is RiskLevel.HIGH
    assert screening.risk.reason == f"rule '{RULES[1].describe()}' says ask; reads a file"


def test_other_calls_keep_their_risk() -> None:
    unmatched = screened("read_file", "docs/a.md", LOW)
    assert (unmatched.rule, unmatched.risk, unmatched.reviewed) == (None, LOW, False)
    allowed = screened("write_file", "docs/a.md", HIGH)  # the review decides it (by the allow rule)
    assert allowed.rule is not None and allowed.risk == HIGH and allowed.reviewed and allowed.denial is None
