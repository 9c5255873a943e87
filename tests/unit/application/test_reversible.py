"""``[review] reversible = "auto"`` in the review gate: confined calls approved unasked, after the rules."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from quorum.application.ports.reviewer import ReviewContext
from quorum.application.reversible import REASON, ReversibleApproval
from quorum.application.review_gate import ReviewGate
from quorum.domain.policy import PolicyRule
from quorum.domain.review import ReviewDecision, Vote
from quorum.domain.tools import RiskLevel, ToolCall, ToolDefinition

ACTIVE = ReversibleApproval(requested=True, checkpoints=True, sandboxed=True)
SED = ToolCall(native_id="c1", name="run_command", arguments={"command": "sed -i s/a/b/ f.txt"})


class Person:
    """A human step that records being asked and rejects."""

    def __init__(self) -> None:
        self.asked: list[str] = []

    async def decide(
        self, call: ToolCall, context: ReviewContext, *, why: str, votes: Sequence[Vote] = ()
    ) -> ReviewDecision:
        self.asked.append(why)
        return ReviewDecision(approved=False, decided_by="human", reason="no")


def context(*, confined: bool, subject: str = "call") -> ReviewContext:
    return ReviewContext(
        run_id="r1",
        task="t",
        tool=ToolDefinition(name="run_command"),
        risk=RiskLevel.HIGH,
        confined=confined,
        subject=subject,  # type: ignore[arg-type]
    )


async def test_a_confined_call_is_approved_without_asking_and_says_why() -> None:
    person = Person()
    decision = await ReviewGate(human=person, reversible=ACTIVE).review(SED, context(confined=True))
    assert decision == ReviewDecision(approved=True, decided_by="reversible", reason=REASON)
    assert REASON == "sandboxed, checkpointed"
    assert person.asked == []


async def test_a_call_that_is_not_confined_is_reviewed_as_before() -> None:
    person = Person()
    decision = await ReviewGate(human=person, reversible=ACTIVE).review(SED, context(confined=False))
    assert not decision.approved and decision.decided_by == "human" and len(person.asked) == 1


async def test_a_deny_rule_still_wins_and_an_ask_rule_still_asks() -> None:
    deny = PolicyRule(decision="deny", tool="run_command", match={"command": "sed *"}, reason="no sed")
    person = Person()
    denied = await ReviewGate(rules=[deny], human=person, reversible=ACTIVE).review(SED, context(confined=True))
    assert (denied.approved, denied.decided_by, denied.reason) == (False, "policy", "no sed")
    ask = PolicyRule(decision="ask", tool="run_command")
    asked = await ReviewGate(rules=[ask], human=person, reversible=ACTIVE).review(SED, context(confined=True))
    assert asked.decided_by == "human" and len(person.asked) == 1


@pytest.mark.parametrize(
    "premises",
    [
        ReversibleApproval(),
        ReversibleApproval(requested=True, checkpoints=False, sandboxed=True),
        ReversibleApproval(requested=True, checkpoints=True, sandboxed=False, sandbox_problem="'bwrap' not found"),
        ReversibleApproval(requested=False, checkpoints=True, sandboxed=True),
    ],
)
async def test_without_every_premise_nothing_is_approved_unasked(premises: ReversibleApproval) -> None:
    person = Person()
    decision = await ReviewGate(human=person, reversible=premises).review(SED, context(confined=True))
    assert decision.decided_by == "human" and len(person.asked) == 1


def test_why_not_names_the_missing_premise() -> None:
    assert ACTIVE.why_not() is None and ReversibleApproval().why_not() is None
    no_sandbox = ReversibleApproval(requested=True, checkpoints=True, sandbox_problem="'bwrap' not found")
    assert no_sandbox.why_not() == "no working sandbox ('bwrap' not found)"
    no_checkpoints = ReversibleApproval(requested=True, sandboxed=True)
    assert "checkpoints are disabled" in (no_checkpoints.why_not() or "")


async def test_a_plan_is_never_approved_as_reversible() -> None:
    person = Person()
    gate = ReviewGate(human=person, reversible=ACTIVE)
    decision = await gate.review(SED, context(confined=True, subject="plan"))
    assert decision.decided_by == "human"
