"""What a chat session has spent so far; its conversation is ``quorum.composition.conversation``'s.

``Conversation`` is re-exported here: the ACP agent's sessions share it.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from quorum.composition.conversation import Conversation
from quorum.domain import amounts
from quorum.domain.events import RunFinished
from quorum.domain.responses import RunUsage, Usage

__all__ = ["Conversation", "SessionSpending"]


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
        ran = finished.usage
        self.usage = RunUsage.of(self.usage.agent_part() + ran.agent_part(), self.usage.reviewers + ran.reviewers)
        if finished.cost is None:
            self.unpriced += 1
        else:
            self.cost += finished.cost

    def add_compaction(self, spent: Usage, cost: float | None) -> None:
        """Count a ``/compact`` summary request: agent tokens, and its cost when the price is known.

        Not a run (``runs`` is unchanged). An unknown price adds no cost: the model's runs are then
        unpriced too, which ``describe`` and ``/cost`` already say.
        """
        self.usage = RunUsage.of(self.usage.agent_part() + spent, self.usage.reviewers)
        if cost is not None:
            self.cost += cost

    def describe(self) -> str:
        """``3 runs · agent 4,200 tokens (4,000 in, 200 out) · reviewers 300 tokens (…) · $0.0123``."""
        u = self.usage
        agent = amounts.tokens(u.input_tokens + u.output_tokens)
        parts = [
            f"{self.runs} run{'s' if self.runs != 1 else ''}",
            f"agent {agent} ({amounts.usage_in_out(u)})",
            f"reviewers {amounts.tokens(u.reviewer_input_tokens + u.reviewer_output_tokens)} "
            f"({amounts.in_out(u.reviewer_input_tokens, u.reviewer_output_tokens)})",
        ]
        if self.runs and self.unpriced == self.runs:
            parts.append("cost unknown (no prices for the model)")
        else:
            money = amounts.usd(self.cost)
            parts.append(money if not self.unpriced else f"{money} + {self.unpriced} run(s) of unknown price")
        return " · ".join(parts)
