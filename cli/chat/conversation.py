"""The conversation of a chat session, and what the session has spent so far.

Each message a person sends is one recorded run continuing the run before it (as ``--continue``
does). The conversation is rebuilt from each run's events, so it stays valid for every provider
(a cancelled turn's unanswered calls are answered "cancelled") and can switch models mid-way.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from quorum.application.history import join_histories, rebuild_history
from quorum.domain import amounts
from quorum.domain.events import RunFinished
from quorum.domain.messages import Message
from quorum.domain.responses import RunUsage, Usage


@dataclass
class Conversation:
    """The messages so far and the runs that produced them, oldest first.

    ``resumed_from`` is the recorded run the conversation continued (``--resume``/``/resume``);
    its history is the starting point, and it is the parent of this session's first run.
    """

    history: tuple[Message, ...] = ()
    run_ids: list[str] = field(default_factory=list)
    resumed_from: str | None = None

    @property
    def parent_run_id(self) -> str | None:
        """The run the next message continues (recorded as its parent), if any."""
        return self.run_ids[-1] if self.run_ids else self.resumed_from

    def add_run(self, run_id: str, events: Iterable[object]) -> None:
        """Append what run ``run_id`` said and did (its events, in emission order)."""
        self.history = tuple(join_histories([list(self.history), rebuild_history(events)]))
        self.run_ids.append(run_id)

    @classmethod
    def resumed(cls, run_id: str, history: Iterable[Message]) -> Conversation:
        """A conversation going on from the recorded run ``run_id``."""
        return cls(history=tuple(history), resumed_from=run_id)


@dataclass
class SessionSpending:
    """Tokens (agent and reviewers) and cost of every run this session made.

    ``cost`` sums the runs whose price is known; ``unpriced`` counts those whose is not.
    """

    runs: int = 0
    usage: RunUsage = field(default_factory=RunUsage)
    cost: float = 0.0
    unpriced: int = 0

    def add(self, finished: RunFinished) -> None:
        """Count a run that ended (``run_finished``: a cancelled run's tokens count too)."""
        self.runs += 1
        agent = Usage(input_tokens=self.usage.input_tokens, output_tokens=self.usage.output_tokens)
        ran = finished.usage
        self.usage = RunUsage.of(
            agent + Usage(input_tokens=ran.input_tokens, output_tokens=ran.output_tokens),
            self.usage.reviewers + ran.reviewers,
        )
        if finished.cost is None:
            self.unpriced += 1
        else:
            self.cost += finished.cost

    def add_compaction(self, spent: Usage, cost: float | None) -> None:
        """Count a ``/compact`` summary request: agent tokens, and its cost when the price is known.

        Not a run (``runs`` is unchanged). An unknown price adds no cost: the model's runs are then
        unpriced too, which ``describe`` and ``/cost`` already say.
        """
        agent = Usage(input_tokens=self.usage.input_tokens, output_tokens=self.usage.output_tokens)
        self.usage = RunUsage.of(agent + spent, self.usage.reviewers)
        if cost is not None:
            self.cost += cost

    def describe(self) -> str:
        """``3 runs · agent 4,200 tokens (4,000 in, 200 out) · reviewers 300 tokens (…) · $0.0123``."""
        u = self.usage
        agent = amounts.tokens(u.input_tokens + u.output_tokens)
        parts = [
            f"{self.runs} run{'s' if self.runs != 1 else ''}",
            f"agent {agent} ({amounts.in_out(u.input_tokens, u.output_tokens)})",
            f"reviewers {amounts.tokens(u.reviewer_input_tokens + u.reviewer_output_tokens)} "
            f"({amounts.in_out(u.reviewer_input_tokens, u.reviewer_output_tokens)})",
        ]
        if self.runs and self.unpriced == self.runs:
            parts.append("cost unknown (no prices for the model)")
        else:
            money = amounts.usd(self.cost)
            parts.append(money if not self.unpriced else f"{money} + {self.unpriced} run(s) of unknown price")
        return " · ".join(parts)
