"""QuorumReviewer: a panel votes in parallel, each member within a deadline; a rule decides.

A call whose arguments are too large for reviewers to see whole never reaches the panel. Each
vote is reported (``report_vote``) the moment it is cast, so a live status shows the panel's
votes while the slower members are still thinking.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence

from quorum.application.ports.reviewer import ReviewContext
from quorum.application.run_context import report_vote
from quorum.domain.review import QuorumRule, ReviewDecision, Vote, milliseconds, votes_needed
from quorum.domain.tools import ToolCall
from quorum.infrastructure.review.prompts import arguments_json
from quorum.infrastructure.review.voters import Voter, error_vote

DEFAULT_MAX_ARGUMENT_BYTES = 65_536


class QuorumReviewer:
    """An ``ActionReviewer`` asking every panel member at once and counting the votes.

    Every member gets ``vote_timeout`` seconds; a late member casts an ``error`` vote, as do
    failing members. ``rule.evaluate(votes, min_votes=min_votes)`` decides over the cast votes, so
    too few answers reject ("not enough reviewers answered") instead of letting one model pass a
    panel. Each vote carries its latency (milliseconds) and is reported (``report_vote``) as soon as it
    is cast, before the others. Never raises except for cancellation.

    Reviewers are shown the arguments whole, never a clipped view they might approve by mistake; a
    call whose arguments (as shown, in UTF-8 bytes) exceed ``max_argument_bytes`` is therefore
    rejected without asking anyone (no votes), which ``escalate_on_reject`` hands to the human
    like any panel rejection.
    """

    def __init__(
        self,
        voters: Sequence[Voter],
        *,
        rule: QuorumRule,
        min_votes: int | None = None,
        vote_timeout: float = 60.0,
        max_argument_bytes: int = DEFAULT_MAX_ARGUMENT_BYTES,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        if not voters:
            raise ValueError("a quorum needs at least one voter")
        self._voters = list(voters)
        self._rule = rule
        self._min_votes = min_votes
        self._timeout = vote_timeout
        self._max_argument_bytes = max_argument_bytes
        self._clock = clock

    @property
    def panel(self) -> list[str]:
        """The members' names, in configured order."""
        return [v.name for v in self._voters]

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        size = len(arguments_json(call).encode("utf-8"))
        if size > self._max_argument_bytes:
            return ReviewDecision(
                approved=False,
                decided_by="quorum",
                rule=str(self._rule),
                reason=too_large_reason(size, self._max_argument_bytes),
            )
        async with asyncio.TaskGroup() as group:
            tasks = [group.create_task(self._timed_vote(v, call, context)) for v in self._voters]
        votes = tuple(task.result() for task in tasks)
        approved, reason = self._rule.evaluate(votes, min_votes=self._min_votes)
        needed = votes_needed(len(votes), self._min_votes)
        rule = str(self._rule)
        return ReviewDecision(
            approved=approved, decided_by="quorum", votes=votes, rule=rule, reason=reason, votes_needed=needed
        )

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
        vote = vote.model_copy(update={"latency_ms": milliseconds(self._clock() - started)})
        report_vote(vote)  # as it arrives; the decision repeats every vote
        return vote


def too_large_reason(size: int, limit: int) -> str:
    """Why a call too large to show whole was rejected without a vote."""
    return (
        f"arguments are {size:,} bytes, above [review] max_argument_bytes = {limit:,}: reviewers cannot see all of it"
    )
