"""Ports of the review: the reviewer the loop asks, and what the review gate is built from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from pydantic import BaseModel, ConfigDict

from quorum.domain.policy import ArgumentView, PolicyRule
from quorum.domain.review import ReviewDecision, Vote
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


class RuleScreen(Protocol):
    """Policy rules screening every call, low-risk ones included, before it is scheduled."""

    def screen(self, call: ToolCall, tool: ToolDefinition) -> PolicyRule | None:
        """The ``[[review.rules]]`` rule that decides ``call`` (deny → ask → allow), or None. Pure, quick."""
        ...


class CallReviewer(ActionReviewer, RuleScreen, Protocol):
    """What the loop consults: rules screen every call; ``review`` decides the reviewed ones."""


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
