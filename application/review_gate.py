"""``ReviewGate``: the one place a call's review is decided — policy rules, the panel, the human.

Every run, whichever driver starts it, and ``quorum review-check`` decide through it, and screen a call
before its review through ``screen_call`` (a ``deny`` rule rejects it, an ``ask`` rule sends a
low-risk call to review); infrastructure only supplies the panel (reviewer models voting), the
human step (a terminal, an editor, a callback) and the call viewer (workspace paths, shell commands).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from quorum.application import model_wording as say
from quorum.application.ports.reviewer import ActionReviewer, CallViewer, HumanStep, ReviewContext, RuleScreen
from quorum.application.reversible import ReversibleApproval
from quorum.domain.policy import PolicyRule, first_match
from quorum.domain.review import ReviewDecision
from quorum.domain.tools import RiskAssessment, RiskLevel, ToolCall, ToolDefinition


@dataclass(frozen=True)
class Screening:
    """A call as the policy rules leave it, before any review.

    Attributes:
        rule: the rule that matched the call; None when none did.
        risk: the risk the call is handled at: its own, raised to high when an ``ask`` rule matches
            a low-risk call (the reason says so).
    """

    rule: PolicyRule | None
    risk: RiskAssessment

    @property
    def denial(self) -> ReviewDecision | None:
        """The rejection when a ``deny`` rule matched (the call never runs, whatever its risk); else None."""
        return rule_decision(self.rule) if self.rule is not None and self.rule.decision == "deny" else None

    @property
    def reviewed(self) -> bool:
        """The call goes to review (high risk and not denied); a low-risk one runs unreviewed."""
        return self.denial is None and self.risk.level is not RiskLevel.LOW


def screen_call(rules: RuleScreen, call: ToolCall, tool: ToolDefinition, risk: RiskAssessment) -> Screening:
    """Screen ``call`` (of ``tool``, assessed at ``risk``) by the policy rules, before it is scheduled or reviewed."""
    rule = rules.screen(call, tool)
    if rule is not None and rule.decision == "ask" and risk.level is RiskLevel.LOW:
        risk = RiskAssessment(level=RiskLevel.HIGH, reason=f"rule '{rule.describe()}' says ask; {risk.reason}")
    return Screening(rule, risk)


class ReviewGate:
    """Implements ``CallReviewer`` (``ActionReviewer`` and ``RuleScreen``).

    1. **Policy rules** (``screen``): deny → ask → allow, first match wins, matched against what the
       call will execute (``viewer``). They apply to *every* call: the loop rejects a call a
       ``deny`` rule matches before it runs, and sends a low-risk call an ``ask`` rule matches
       through review. In ``review``: ``deny`` rejects and ``allow`` approves at once
       (``decided_by="policy"``); ``ask`` goes straight to the human step.
    2. **Reversible** (``reversible``, when active): a call assessed ``confined`` (its whole effect
       in the workspace, checkpointed) is approved at once (``decided_by="reversible"``). Rules
       come first: a ``deny`` rule still rejects it, an ``ask`` rule still asks.
    3. **Panel** (when configured): its decision stands, unless it rejected and
       ``escalate_on_reject`` is set: then the human decides, seeing the votes.
    4. **Human**: no panel, a rule said ask, or an escalated rejection.

    Fails closed: a panel or human step that raises is a rejection.
    """

    def __init__(
        self,
        *,
        rules: Sequence[PolicyRule] = (),
        panel: ActionReviewer | None = None,
        human: HumanStep,
        escalate_on_reject: bool = False,
        viewer: CallViewer | None = None,
        reversible: ReversibleApproval | None = None,
    ) -> None:
        self.rules = tuple(rules)
        self.reversible = reversible or ReversibleApproval()
        self.panel = panel
        self.human = human
        self.escalate_on_reject = escalate_on_reject
        self._viewer = viewer

    def screen(self, call: ToolCall, tool: ToolDefinition | None) -> PolicyRule | None:
        if not self.rules:
            return None
        views = self._viewer.view(call, tool) if self._viewer is not None else None
        return first_match(self.rules, call.name, call.arguments, views)

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        try:
            return await self._decide(call, context)
        except Exception as error:  # every step promises not to raise; if one does, fail closed
            return ReviewDecision(approved=False, decided_by="auto", reason=say.review_failed("the review", error))

    async def _decide(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        rule = self.screen(call, context.tool)
        if rule is not None and rule.decision != "ask":
            return rule_decision(rule)
        if rule is not None:
            why = f"rule '{rule.describe()}' says ask" + (f": {rule.reason}" if rule.reason else "")
            decision = await self.human.decide(call, context, why=why)
            return decision.model_copy(update={"rule": rule.describe()})
        if (reversible := self.reversible.decide(context.confined and context.subject == "call")) is not None:
            return reversible
        if self.panel is None:
            return await self.human.decide(call, context, why="no reviewer models are configured")
        try:
            decision = await self.panel.review(call, context)
        except Exception as error:  # the port says never raise; if it does, fail closed
            return ReviewDecision(
                approved=False, decided_by="quorum", reason=say.review_failed("the review panel", str(error))
            )
        if decision.approved or not self.escalate_on_reject:
            return decision
        escalated = await self.human.decide(
            call, context, why=f"the panel rejected it ({decision.reason})", votes=decision.votes
        )
        return escalated.model_copy(update={"rule": decision.rule})

    async def review_plan(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        """Decide a proposed plan: the panel votes (same quorum rule), then the person confirms.

        Policy rules are not consulted: a rule matches calls, and no rule may approve a plan. A
        panel rejection goes back to the model, unless ``escalate_on_reject`` lets the person
        decide; an approval, or no panel, reaches the human step (``--yes`` approves there,
        ``defer`` leaves the plan to ``quorum approve``). Fails closed as ``review`` does.
        """
        try:
            if self.panel is None:
                return await self.human.decide(call, context, why="plan review: no reviewer models are configured")
            try:
                voted = await self.panel.review(call, context)
            except Exception as error:  # the port says never raise; if it does, fail closed
                return ReviewDecision(
                    approved=False, decided_by="quorum", reason=say.review_failed("the review panel", str(error))
                )
            if not voted.approved and not self.escalate_on_reject:
                return voted
            why = "the panel approved the plan" if voted.approved else f"the panel rejected the plan ({voted.reason})"
            return await self.human.decide(call, context, why=why, votes=voted.votes)
        except Exception as error:
            return ReviewDecision(approved=False, decided_by="auto", reason=say.review_failed("the plan review", error))


def rule_decision(rule: PolicyRule) -> ReviewDecision:
    """The decision of an ``allow`` or ``deny`` rule (``decided_by="policy"``, the rule's reason)."""
    approved = rule.decision == "allow"
    said = rule.reason or ("allowed" if approved else "denied") + " by policy"
    return ReviewDecision(approved=approved, decided_by="policy", rule=rule.describe(), reason=said)
