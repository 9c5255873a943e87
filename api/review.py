"""How an embedding application reviews high-risk calls: ``Review``, and ``human=`` callbacks.

::

    def ask_my_user(request: ReviewRequest) -> Decision:
        return Decision(approved=my_ui.confirm(request.tool, request.arguments), reason="user said so")

    agent = Agent("openai:gpt-4.1-mini", review=Review(reviewers=["anthropic:claude-haiku-4-5"], human=ask_my_user))
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from quorum.domain.policy import PolicyRule
from quorum.infrastructure.review.human import HumanAnswer, HumanRequest
from quorum.infrastructure.tools.blocking import run_blocking


@dataclass(frozen=True)
class ReviewRequest:
    """A call waiting for a human decision.

    Attributes:
        tool: the tool's name.
        arguments: the call's arguments, as the model sent them.
        risk_reason: why the call is high-risk.
        why: why a human is asked (no panel, a rule said ask, the panel rejected).
        votes: the panel's votes so far, as ``(reviewer, verdict, reason)``.
        task: the run's task.
        run_id: the run the call belongs to.
        plan: plan mode: the plan to decide, numbered, when ``tool`` is ``propose_plan``; else
            the run's approved plan (does the call belong to it?); empty outside plan mode.
    """

    tool: str
    arguments: Mapping[str, Any]
    risk_reason: str
    why: str
    votes: tuple[tuple[str, str, str], ...]
    task: str
    run_id: str
    plan: str = ""


@dataclass(frozen=True)
class Decision:
    """A human decision: approve or reject, and the reason the model is told."""

    approved: bool
    reason: str = ""


HumanCallback = Callable[[ReviewRequest], "Decision | bool | Awaitable[Decision | bool]"]
"""Sync or async; returning a bare bool is allowed. A sync callback runs in a worker thread."""


@dataclass(frozen=True)
class Review:
    """The ``[review]`` section as keyword arguments.

    Attributes:
        reviewers: the panel, as model ids (``"anthropic:claude-haiku-4-5"``) or plugin reviewer names.
        rule: ``majority``, ``unanimous``, ``at_least:N`` or ``percentage:P`` over cast votes.
        rules: policy rules (``PolicyRule`` objects or ``[[review.rules]]``-shaped dicts).
        human: decides calls that reach the human step; without it they are rejected (as under
            ``--json``). Sync or async, ``(ReviewRequest) -> Decision`` (or a bool).
        min_votes, vote_timeout_seconds, escalate_on_reject, max_argument_bytes: as in quorum.toml.
        hil_mode: ``auto_approve``/``auto_reject`` decide without asking; default ``interactive``.
    """

    reviewers: Sequence[str] = ()
    rule: str = "majority"
    rules: Sequence[PolicyRule | Mapping[str, Any]] = ()
    human: HumanCallback | None = None
    min_votes: int | None = None
    vote_timeout_seconds: float | None = None
    escalate_on_reject: bool = False
    max_argument_bytes: int | None = None
    hil_mode: Literal["interactive", "auto_approve", "auto_reject"] = "interactive"
    extra: Mapping[str, Any] = field(default_factory=dict)

    def section(self) -> dict[str, Any]:
        """The ``[review]`` table these arguments stand for."""
        table: dict[str, Any] = {"reviewers": list(self.reviewers), "rule": self.rule, "hil_mode": self.hil_mode}
        table["rules"] = [r.model_dump() if isinstance(r, PolicyRule) else dict(r) for r in self.rules]
        table["escalate_on_reject"] = self.escalate_on_reject
        for key in ("min_votes", "vote_timeout_seconds", "max_argument_bytes"):
            if getattr(self, key) is not None:
                table[key] = getattr(self, key)
        table.update(self.extra)
        return table


class CallbackPrompt:
    """Implements the human-step prompt (``HumanPrompt``) with an application's callback."""

    def __init__(self, callback: HumanCallback) -> None:
        self._callback = callback

    async def ask(self, request: HumanRequest) -> HumanAnswer:
        asked = ReviewRequest(
            tool=request.call.name,
            arguments=dict(request.call.arguments),
            risk_reason=request.context.risk_reason,
            why=request.why,
            votes=tuple((v.reviewer, v.verdict.value, v.reason) for v in request.votes),
            task=request.context.task,
            run_id=request.context.run_id,
            plan=_plan_text(request),
        )
        if inspect.iscoroutinefunction(self._callback):
            answer = await self._callback(asked)
        else:
            answer = await run_blocking(lambda _stop: self._callback(asked))
            if inspect.isawaitable(answer):
                answer = await answer
        decision = answer if isinstance(answer, Decision) else Decision(approved=bool(answer))
        return HumanAnswer("approve" if decision.approved else "reject", decision.reason)


def _plan_text(request: HumanRequest) -> str:
    """The plan a person deciding ``request`` should read (see ``ReviewRequest.plan``)."""
    if request.context.subject == "plan":
        from quorum.application.plan_mode import plan_of

        plan = plan_of(request.call)
        return plan.numbered() if plan is not None else ""
    return request.context.plan
