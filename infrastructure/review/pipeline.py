"""ReviewPipeline: policy rules → quorum vote → human, for every high-risk call."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from quorum.application.ports.reviewer import ActionReviewer, ReviewContext
from quorum.domain.policy import PolicyRule, first_match
from quorum.domain.review import ReviewDecision
from quorum.domain.tools import ToolCall
from quorum.infrastructure.review.factory import build_human, build_quorum, review_settings
from quorum.infrastructure.review.human import HumanReviewer
from quorum.infrastructure.review.quorum import QuorumReviewer

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.contracts import ReviewerContext
    from quorum.infrastructure.plugins.registries import ReviewerRegistry


class ReviewPipeline:
    """The ``ActionReviewer`` the run uses.

    1. **Policy rules** (deny → ask → allow, first match wins): ``deny`` rejects at once and
       ``allow`` approves at once (``decided_by="policy"``, the rule's reason); ``ask`` goes
       straight to the human step, skipping the panel.
    2. **Quorum** (when a panel is configured): its decision stands — unless it rejected and
       ``escalate_on_reject`` is set, in which case the human step decides, seeing the votes.
    3. **Human** (no panel, a rule said ask, or an escalated rejection): ``HumanReviewer``.

    Fails closed: a panel that raises is a rejection (``decided_by="quorum"``).
    """

    def __init__(
        self,
        *,
        rules: Sequence[PolicyRule] = (),
        quorum: ActionReviewer | None = None,
        human: HumanReviewer,
        escalate_on_reject: bool = False,
    ) -> None:
        self.rules = tuple(rules)
        self.quorum = quorum
        self.human = human
        self.escalate_on_reject = escalate_on_reject

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        rule = first_match(self.rules, call.name, call.arguments)
        if rule is not None and rule.decision != "ask":
            approved = rule.decision == "allow"
            said = rule.reason or ("allowed" if approved else "denied") + " by policy"
            return ReviewDecision(approved=approved, decided_by="policy", rule=rule.describe(), reason=said)
        if rule is not None:
            why = f"rule '{rule.describe()}' says ask" + (f": {rule.reason}" if rule.reason else "")
            decision = await self.human.decide(call, context, why=why)
            return decision.model_copy(update={"rule": rule.describe()})
        if self.quorum is None:
            return await self.human.decide(call, context, why="no reviewer models are configured")
        try:
            decision = await self.quorum.review(call, context)
        except Exception as error:  # the port says never raise; if it does, fail closed
            return ReviewDecision(approved=False, decided_by="quorum", reason=f"the review panel failed: {error}")
        if decision.approved or not self.escalate_on_reject:
            return decision
        escalated = await self.human.decide(
            call, context, why=f"the panel rejected it ({decision.reason})", votes=decision.votes
        )
        return escalated.model_copy(update={"rule": decision.rule})


def build_reviewer(context: ReviewerContext, registry: ReviewerRegistry | None = None) -> ActionReviewer:
    """The reviewer a run uses: a ``ReviewPipeline`` (policy rules → quorum → human) from ``[review]``.

    This is the one function the composition root calls, once per run (the pipeline remembers
    "always approve" answers for the run it was built for).

    Args:
        context: settings, the gateway for reviewer models, whether a human can be asked
            (``interactive``), ``--yes`` (``auto_approve``) and an optional prompt adapter (a
            ``HumanPrompt``; the terminal one is used when ``interactive`` and none is given).
        registry: the plugin catalog's reviewers, so plugin reviewers can sit on the panel.

    Raises:
        ConfigurationError: see ``build_quorum``.
    """
    settings = review_settings(context)
    return ReviewPipeline(
        rules=settings.rules,
        quorum=build_quorum(context, registry),
        human=build_human(context),
        escalate_on_reject=settings.escalate_on_reject,
    )


def describe_pipeline(reviewer: Any) -> str:
    """One line saying how calls are reviewed (for ``review-check`` and ``config show``)."""
    if not isinstance(reviewer, ReviewPipeline):
        return type(reviewer).__name__
    parts = [f"{len(reviewer.rules)} policy rule(s)"]
    if isinstance(reviewer.quorum, QuorumReviewer):
        parts.append(f"panel {', '.join(reviewer.quorum.panel)}")
    else:
        parts.append("no panel")
    parts.append(f"human step {reviewer.human.mode}")
    if reviewer.escalate_on_reject:
        parts.append("rejections escalate to the human")
    return "; ".join(parts)
