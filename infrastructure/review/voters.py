"""Panel members: a reviewer model answering through ``submit_verdict``, or a plugin's reviewer.

A voter never raises for its own failures: a provider error, a missing verdict or a broken plugin
becomes an ``error`` vote, which the quorum rule does not count as cast. Timeouts are enforced by
the caller (``QuorumReviewer``), which also turns them into error votes.
"""

from __future__ import annotations

import asyncio
from typing import Protocol

from quorum.application.fallback import FallbackGateway
from quorum.application.ports.llm import LlmGateway, TurnInput
from quorum.application.ports.reviewer import ActionReviewer, ReviewContext
from quorum.application.run_context import current_run_events
from quorum.domain.events import ModelFallback
from quorum.domain.responses import Usage
from quorum.domain.review import Verdict, Vote
from quorum.domain.tools import ToolCall, ToolResult
from quorum.infrastructure.review.prompts import NUDGE, SUBMIT_VERDICT_SCHEMA, read_verdict, review_prompt


class Voter(Protocol):
    """One member of a review panel."""

    name: str

    async def vote(self, call: ToolCall, context: ReviewContext) -> Vote:
        """This member's vote on ``call``; failures are ``error`` votes, never exceptions."""
        ...


def error_vote(name: str, reason: str) -> Vote:
    return Vote(reviewer=name, verdict=Verdict.ERROR, reason=reason)


class ModelVoter:
    """A reviewer model (``provider:model``) voting through the ``submit_verdict`` tool.

    Each call is reviewed in a fresh session, so one review never leaks into the next, with its own
    prompt nonce (see ``review_prompt``), so no two sessions share section markers. The session
    is offered ``submit_verdict`` and nothing else. An answer without a valid verdict gets one
    nudge in the same session — a new user message repeating the request, or, when the model
    called a tool wrongly, an error result for each of its calls followed by the request, so the
    history stays valid — and then counts as an error vote. Text is never parsed for a verdict.
    The vote carries the model id and the tokens of every response, an error vote's included (a
    vote cut off by the panel's deadline reports none: its last response never arrived).

    With a ``fallback`` model, a request the reviewer model cannot answer (overloaded, 5xx, 429,
    timeout, connection error) goes to the fallback, which votes in its place from then on: the
    panel's quorum stays whole. The move is a ``model_fallback`` event of the run (``reviewer``
    names the seat); the vote's ``model`` is the model that answered.
    """

    def __init__(
        self, gateway: LlmGateway, model_id: str, *, seat: str | None = None, fallback: str | None = None
    ) -> None:
        self.name = seat or model_id
        self.model_id = model_id
        self._answering = model_id
        if fallback is not None:  # the seat stays on the model that answered, vote after vote
            gateway = FallbackGateway(gateway, {model_id: [fallback]}, self._fell_back, reviewer=self.name)
        self._gateway = gateway

    def _fell_back(self, event: ModelFallback) -> None:
        """The fallback answers from now on: its votes name it (their tokens are priced as its own)."""
        self._answering = event.to
        emit = current_run_events.get()
        if emit is not None:
            emit(event)

    async def vote(self, call: ToolCall, context: ReviewContext) -> Vote:
        spent = Usage()  # every response's tokens, whatever the vote turns out to be
        try:
            prompt = review_prompt(call, context)  # a fresh nonce per session
            session = self._gateway.session(self.model_id, prompt.system)
            tools = [SUBMIT_VERDICT_SCHEMA]
            response = await session.request(TurnInput.user(prompt.user, tools))
            spent += response.usage
            outcome = read_verdict(response.tool_calls())
            if isinstance(outcome, str):
                calls = response.tool_calls()
                if calls:
                    results = [
                        ToolResult(call_id=c.native_id, name=c.name, output=outcome, is_error=True) for c in calls
                    ]
                    response = await session.request(TurnInput.answering(results, tools, note=NUDGE))
                else:
                    response = await session.request(TurnInput.user(NUDGE, tools))
                spent += response.usage
                outcome = read_verdict(response.tool_calls())
        except asyncio.CancelledError:
            raise
        except Exception as error:  # provider down, missing key, script exhausted: not a verdict
            return self._vote(error_vote(self.name, f"{type(error).__name__}: {error}"), spent)
        if isinstance(outcome, str):
            return self._vote(error_vote(self.name, f"no verdict after a reminder: {outcome}"), spent)
        verdict, reason = outcome
        return self._vote(Vote(reviewer=self.name, verdict=verdict, reason=reason), spent)

    def _vote(self, vote: Vote, spent: Usage) -> Vote:
        """``vote`` naming the model that answered for this reviewer and the tokens it spent."""
        return vote.model_copy(update={"model": self._answering, "usage": spent})


class ReviewerVoter:
    """A reviewer registered by a plugin (an ``ActionReviewer``) sitting on the panel.

    Its decision becomes an approve or reject vote with the decision's reason.
    """

    def __init__(self, name: str, reviewer: ActionReviewer) -> None:
        self.name = name
        self._reviewer = reviewer

    async def vote(self, call: ToolCall, context: ReviewContext) -> Vote:
        try:
            decision = await self._reviewer.review(call, context)
        except asyncio.CancelledError:
            raise
        except Exception as error:
            return error_vote(self.name, f"{type(error).__name__}: {error}")
        verdict = Verdict.APPROVE if decision.approved else Verdict.REJECT
        return Vote(reviewer=self.name, verdict=verdict, reason=decision.reason)
