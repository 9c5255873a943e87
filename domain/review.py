"""Review vocabulary: votes, the quorum rule that counts them, and the decision on a call."""

from __future__ import annotations

import re
from collections.abc import Sequence
from enum import StrEnum
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, model_validator

from quorum.domain.errors import ConfigurationError
from quorum.domain.responses import Usage


class Verdict(StrEnum):
    """A reviewer's answer. ``error`` means it gave none (timeout, provider error, no verdict)."""

    APPROVE = "approve"
    REJECT = "reject"
    ERROR = "error"


class Vote(BaseModel):
    """One reviewer's vote on one call: the one shape of a vote, in decisions, events and the run log.

    ``latency_ms`` is how long the reviewer took, in milliseconds (the unit of the ``--json``
    events). ``model`` is the reviewer model's id (``provider:model``; None for a plugin reviewer
    or a person) and ``usage`` the tokens it spent reaching this vote, an error vote's included.
    ``latency`` (seconds), the field's earlier name and unit, is still read: workflow histories
    of runs in flight and plugins written before hold it.
    """

    model_config = ConfigDict(frozen=True)

    reviewer: str
    verdict: Verdict
    reason: str = ""
    latency_ms: float = 0.0
    model: str | None = None
    usage: Usage = Usage()

    @model_validator(mode="before")
    @classmethod
    def _latency_in_seconds(cls, data: Any) -> Any:
        if isinstance(data, dict) and "latency" in data:
            data = dict(data)
            seconds = data.pop("latency")
            data.setdefault("latency_ms", milliseconds(float(seconds)))
        return data

    @property
    def latency(self) -> float:
        """``latency_ms`` in seconds."""
        return self.latency_ms / 1000


def milliseconds(seconds: float) -> float:
    """``seconds`` in milliseconds, to the microsecond: how events and votes carry durations."""
    return round(seconds * 1000, 3)


_RULE = re.compile(r"^(majority|unanimous|at_least:(\d+)|percentage:(\d+(?:\.\d+)?))$")


class QuorumRule(BaseModel):
    """How cast votes (approve or reject; error votes are not cast) become a decision.

    - ``majority``: more than half of the cast votes approve.
    - ``unanimous``: every cast vote approves.
    - ``at_least:N``: at least N approvals.
    - ``percentage:P``: approvals are at least P % of the cast votes.

    Whatever the rule, fewer than ``min_votes`` cast votes (default: a majority of the panel) reject.
    """

    model_config = ConfigDict(frozen=True)

    kind: Literal["majority", "unanimous", "at_least", "percentage"]
    value: float | None = None

    @classmethod
    def parse(cls, text: str) -> QuorumRule:
        """Parse ``majority``, ``unanimous``, ``at_least:N`` or ``percentage:P``.

        Raises:
            ConfigurationError: for anything else, or N < 1, or P outside (0, 100].
        """
        m = _RULE.match(text.strip())
        if not m:
            raise ConfigurationError(f"expected majority, unanimous, at_least:N or percentage:P, got {text!r}")
        if m.group(2) is not None:
            n = int(m.group(2))
            if n < 1:
                raise ConfigurationError(f"at_least:N needs N ≥ 1, got {n}")
            return cls(kind="at_least", value=n)
        if m.group(3) is not None:
            p = float(m.group(3))
            if not 0 < p <= 100:
                raise ConfigurationError(f"percentage:P needs 0 < P ≤ 100, got {p:g}")
            return cls(kind="percentage", value=p)
        return cls(kind=m.group(1))  # type: ignore[arg-type]

    def __str__(self) -> str:
        if self.kind == "at_least":
            return f"at_least:{int(self.value or 0)}"
        if self.kind == "percentage":
            return f"percentage:{self.value:g}"
        return self.kind

    def evaluate(self, votes: Sequence[Vote], *, min_votes: int | None = None) -> tuple[bool, str]:
        """Decide over ``votes``; returns (approved, a one-line reason). Pure.

        ``min_votes`` defaults to a majority of the panel (``len(votes) // 2 + 1``).
        """
        panel = len(votes)
        approvals = sum(v.verdict is Verdict.APPROVE for v in votes)
        cast = approvals + sum(v.verdict is Verdict.REJECT for v in votes)
        needed_cast = votes_needed(panel, min_votes)
        if cast == 0 or cast < needed_cast:
            return False, f"not enough reviewers answered ({cast} of {panel} cast, {needed_cast} needed)"
        if self.kind == "majority":
            ok = approvals * 2 > cast
        elif self.kind == "unanimous":
            ok = approvals == cast
        elif self.kind == "at_least":
            ok = approvals >= int(self.value or 0)
        else:
            ok = approvals * 100 >= (self.value or 0) * cast
        word = "APPROVED" if ok else "REJECTED"
        return ok, f"{word} {approvals}/{cast} {self}"


def votes_needed(panel: int, min_votes: int | None = None) -> int:
    """The fewest cast votes a panel of ``panel`` members counts: ``min_votes``, by default a majority."""
    return (panel // 2 + 1) if min_votes is None else min_votes


def counted(votes: Sequence[Vote], needed: int | None = None) -> bool:
    """Whether enough of ``votes`` were cast for the rule to count them (``needed``: see ``votes_needed``)."""
    cast = sum(v.verdict is not Verdict.ERROR for v in votes)
    return cast > 0 and cast >= (votes_needed(len(votes)) if needed is None else needed)


DecidedBy = Literal["policy", "quorum", "human", "auto", "hook", "reversible"]


class ReviewDecision(BaseModel):
    """The outcome of reviewing one high-risk call.

    ``deferred`` means no decision yet: a person decides later (``hil_mode = "defer"``). A
    deferred outcome is never approved, so code unaware of deferral rejects the call (fails
    closed); the loop instead leaves the call waiting for ``quorum approve``/``reject``. ``hook``
    is the command of a hook that decided (``decided_by="hook"``: see ``quorum.application.hooks``). ``by``
    names the person who decided later, when one did. ``votes_needed`` is, for a panel's
    decision, the fewest cast votes it needed to count them (``[review] min_votes``; fewer reject:
    "not enough reviewers answered").
    """

    model_config = ConfigDict(frozen=True)

    approved: bool
    decided_by: DecidedBy
    votes: tuple[Vote, ...] = ()
    rule: str | None = None
    reason: str = ""
    deferred: bool = False
    by: str | None = None
    votes_needed: int | None = None
    hook: str | None = None
    """The command of the ``pre_tool_use`` hook that decided (``decided_by="hook"``); None otherwise."""

    @model_validator(mode="after")
    def _deferred_is_not_approved(self) -> ReviewDecision:
        if self.deferred and self.approved:
            raise ValueError("a deferred review has no decision yet: it cannot be approved")
        return self

    @property
    def usage(self) -> Usage:
        """Tokens the reviewer models spent on this decision (the sum over ``votes``)."""
        return sum((vote.usage for vote in self.votes), Usage())
