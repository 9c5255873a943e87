"""Ports of the review: the reviewer the loop asks, and what the review gate is built from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Literal, Protocol

from pydantic import BaseModel, ConfigDict

from quorum.domain.policy import ArgumentView, PolicyRule
from quorum.domain.review import ReviewDecision, Vote
from quorum.domain.tools import RiskLevel, ToolCall, ToolDefinition


class ReviewContext(BaseModel):
    """What a reviewer may know about the call beyond the call itself.

    ``plan`` is the run's approved plan as numbered text (plan mode's execution phase), so a
    reviewer can ask whether the call belongs to it; empty outside plan mode. ``subject`` is
    ``plan`` when the call under review is a ``propose_plan`` call: the plan itself is judged.
    """

    model_config = ConfigDict(frozen=True)

    run_id: str
    task: str
    tool: ToolDefinition
    risk: RiskLevel
    risk_reason: str = ""
    assistant_text: str = ""
    plan: str = ""
    subject: Literal["call", "plan"] = "call"
    confined: bool = False
    """The call's whole effect stays in the workspace, on checkpointed files (``RiskAssessment.confined``)."""


class ActionReviewer(Protocol):
    """Reviews one high-risk call at a time; the run executes the call only if approved."""

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        """Decide on ``call``. Must not raise for reviewer failures: fail closed with a rejection."""
        ...


class RuleScreen(Protocol):
    """Policy rules screening every call, low-risk ones included, before it is scheduled."""

    def screen(self, call: ToolCall, tool: ToolDefinition) -> PolicyRule | None:
        """The ``[[review.rules]]`` rule that decides ``call`` (deny → ask → allow), or None. Pure, quick."""
        ...


class PlanReviewer(Protocol):
    """Reviews a proposed plan (plan mode): policy rules never decide it."""

    async def review_plan(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        """Decide the plan in ``call`` (a ``propose_plan`` call). Must not raise: fail closed."""
        ...


class CallReviewer(ActionReviewer, RuleScreen, PlanReviewer, Protocol):
    """What the loop consults: rules screen every call; ``review`` decides the reviewed ones; ``review_plan`` plans."""


class CallViewer(Protocol):
    """Shows policy rules what a call will execute (resolved paths, simple commands)."""

    def view(self, call: ToolCall, tool: ToolDefinition | None) -> Mapping[str, ArgumentView]:
        """Views of the arguments the tool interprets; others are matched as their text. Never raises."""
        ...


class HumanStep(Protocol):
    """The last step of a review: a person (or ``hil_mode``) decides."""

    async def decide(
        self, call: ToolCall, context: ReviewContext, *, why: str, votes: Sequence[Vote] = ()
    ) -> ReviewDecision:
        """Decide ``call``, which reached this step because of ``why`` after ``votes``. Never hangs without input."""
        ...
