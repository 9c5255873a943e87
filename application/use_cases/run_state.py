"""``RunState``: what a run keeps while it goes — turns, tokens, the session, the turn still open."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from quorum.application import model_wording as say
from quorum.application.call_ids import CallIds
from quorum.application.context_fit import ContextFit
from quorum.application.deferral import PendingTurn
from quorum.application.hooks import RunHooks
from quorum.application.ports.llm import LlmSession
from quorum.application.ports.pricing import PriceList
from quorum.application.tool_batch import RejectionCounter, ReviewerSpending, TurnCalls
from quorum.domain.events import RunStopReason
from quorum.domain.plans import ApprovedPlan
from quorum.domain.responses import LlmResponse, RunUsage, Usage
from quorum.domain.tools import ToolSpec

Stop = tuple[RunStopReason, str | None]
"""How a run ends: the stop reason and its detail (None for a plain end of turn)."""


@dataclass
class AnsweringModel:
    """The model answering the run's requests now (``provider:model``): a fallback moves it."""

    model_id: str


@dataclass
class RunState:
    """The mutable state of one run (or one part of it, after a continuation); its phases share it."""

    run_id: str
    task: str
    session: LlmSession
    """The run's session: compaction and plan mode's phases replace it by one on the same history."""
    rejections: RejectionCounter
    """Consecutive review rejections across the run's phases (``max_rejections``)."""
    model_id: str = ""
    turns: int = 0
    usage: Usage = field(default_factory=Usage)
    """The agent model's tokens and MCP servers' sampling (the token budget counts these)."""
    responses: list[tuple[str, Usage]] = field(default_factory=list)
    """Each response's model and tokens, priced one by one (prices may depend on a request's size)."""
    sampled: list[tuple[str, Usage]] = field(default_factory=list)
    """Each MCP sampling request's model and tokens (``mcp_sampling`` events), priced apart."""
    reviewers: ReviewerSpending = field(default_factory=ReviewerSpending)
    last_text: str = ""
    pending: TurnCalls | None = None
    """The turn whose results the session does not have yet (answered if the run stops)."""
    offered: ToolSpec = field(default_factory=ToolSpec)
    reviewers_before: Usage = field(default_factory=Usage)
    """Reviewer tokens spent before a continuation (``PendingTurn.usage_before``)."""
    cost_before: float | None = 0.0
    """What the run cost before a continuation (USD), None when unknown."""
    fit: ContextFit | None = None
    """Keeps the requests inside the model's window (None: ``compact = "off"``)."""
    cost_cap: float | None = None
    """``max_cost_usd``: the run stops once its spending passes it (USD)."""
    waiting: tuple[str, ...] = ()
    """The ids of the calls left to a person when the run stops ``awaiting_approval``."""
    call_ids: CallIds = field(default_factory=CallIds)
    """The conversation's call ids: a call reusing one gets a fresh internal id (``call_ids``)."""
    plan: ApprovedPlan | None = None
    """Plan mode's approved plan: the execution phase's turns are counted after ``plan.turn``."""
    answering: AnsweringModel | None = None
    """The model answering now, when fallback models may move it (None: ``model_id`` always)."""
    hooks: RunHooks | None = None
    """The run's hooks (None: none are configured)."""
    blocked_by: str | None = None
    """The ``user_prompt_submit`` hook that blocked the run's message (it stopped ``rejected``)."""
    children_reviewers: Usage = field(default_factory=Usage)
    """The reviewer tokens of the run's delegations (their agent tokens are in ``usage``)."""
    children_cost: float | None = 0.0
    """What the run's delegations cost (USD), None when one's cost is unknown."""

    def delegated(self, usage: RunUsage, cost: float | None) -> None:
        """Count a finished child run (a delegation): its tokens and its cost are this run's too."""
        self.usage = self.usage + usage.agent_part()
        self.children_reviewers = self.children_reviewers + usage.reviewers
        self.children_cost = None if cost is None or self.children_cost is None else self.children_cost + cost

    answer_schema: dict[str, Any] | None = None
    """The JSON Schema every request asks the answer to match (the execution phase of a run with
    ``output_schema``; ``TurnInput.answer_schema``), or None."""

    def continue_from(self, resume: PendingTurn) -> None:
        """Go on from a turn left open by deferred review: its number and what was spent before it."""
        self.turns = resume.turn
        before = resume.usage_before
        self.usage = before.agent_part()
        self.reviewers_before, self.cost_before = before.reviewers, resume.cost_before

    def count(self, response: LlmResponse) -> None:
        """Add a response's tokens (priced as the model answering now) and keep its text as the run's latest output."""
        self.usage = self.usage + response.usage
        self.responses.append((self.answering_for(self.model_id), response.usage))
        if text := response.text_content():
            self.last_text = text

    def answering_for(self, model_id: str) -> str:
        """The model answering for ``model_id`` now: after a fallback moved the run's model, the fallback."""
        if self.answering is not None and model_id == self.model_id:
            return self.answering.model_id
        return model_id

    def stop_after(self, response: LlmResponse, budget: int | None) -> Stop | None:
        """The stop ``response`` calls for: the token ``budget`` exceeded, or the output token limit hit."""
        if budget is not None and self.usage.total_tokens > budget:
            return (
                RunStopReason.MAX_TOKENS,
                say.token_budget_exceeded(budget, self.usage.total_tokens),
            )
        if response.stop_reason.kind == "max_tokens":
            return RunStopReason.MAX_TOKENS, say.OUTPUT_TOKEN_LIMIT
        return None

    def over_cost(self, prices: PriceList | None) -> Stop | None:
        """The ``max_cost`` stop when the spending so far passed ``cost_cap`` (None: no cap, or prices unknown)."""
        if self.cost_cap is None:
            return None
        spent = self.cost(prices)
        if spent is None or spent <= self.cost_cap:
            return None
        return RunStopReason.MAX_COST, say.cost_cap_reached(self.cost_cap, spent)

    def total_usage(self) -> RunUsage:
        """The run's usage: the agent's tokens and, apart, every reviewer vote's."""
        return RunUsage.of(self.usage, self.reviewers_before + self.reviewers.total + self.children_reviewers)

    def cost(self, prices: PriceList | None) -> float | None:
        """The agent's, sampling's and the reviewer models' tokens in USD; None if a price is unknown.

        Each response (each vote for a reviewer, each sampling request) is priced apart, as
        providers bill requests.
        """
        if prices is None or self.cost_before is None or self.children_cost is None:
            return None
        total = self.cost_before + self.children_cost
        spent = [(model_id, usage) for model_id, usage in self.responses if usage.total_tokens]
        for model_id, usage in [*spent, *self.sampled, *self.reviewers.votes]:
            cost = prices.cost(model_id, usage)
            if cost is None:
                return None
            total += cost
        return round(total, 8)
