"""QuorumReviewer: a panel votes in parallel, each member within a deadline; a rule decides."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from quorum.application.ports.reviewer import ReviewContext
from quorum.domain.review import QuorumRule, ReviewDecision, Vote
from quorum.domain.tools import ToolCall
from quorum.infrastructure.review.voters import Voter, error_vote


class QuorumReviewer:
    """An ``ActionReviewer`` asking every panel member at once and counting the votes.

    Every member gets ``vote_timeout`` seconds; a late member casts an ``error`` vote, as do
    failing members. ``rule.evaluate(votes, min_votes=min_votes)`` decides over the cast votes, so
    too few answers reject ("not enough reviewers answered") instead of letting one model pass a
    panel. Each vote carries its latency in seconds. Never raises except for cancellation.
    """

    def __init__(
        self,
        voters: Sequence[Voter],
        *,
        rule: QuorumRule,
        min_votes: int | None = None,
        vote_timeout: float = 60.0,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not voters:
            raise ValueError("a quorum needs at least one voter")
        self._voters = list(voters)
        self._rule = rule
        self._min_votes = min_votes
        self._timeout = vote_timeout
        self._clock = clock

    @property
    def panel(self) -> list[str]:
        """The members' names, in configured order."""
        return [v.name for v in self._voters]

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(self._timed_vote(v, call, context)) for v in self._voters]
        votes = tuple(task.result() for task in tasks)
        approved, reason = self._rule.evaluate(votes, min_votes=self._min_votes)
        return ReviewDecision(approved=approved, decided_by="quorum", votes=votes, rule=str(self._rule), reason=reason)

    async def _timed_vote(self, voter: Voter, call: ToolCall, context: ReviewContext) -> Vote:
        started = self._clock()
        try:
            async with asyncio.timeout(self._timeout):
                vote = await voter.vote(call, context)
        except TimeoutError:
            vote = error_vote(voter.name, f"no answer within {self._timeout:g} s")
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a voter breaking its own contract still only costs its vote
            vote = error_vote(voter.name, f"{type(error).__name__}: {error}")
        return vote.model_copy(update={"latency": round(self._clock() - started, 6)})
