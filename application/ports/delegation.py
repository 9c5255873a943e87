"""Port to child runs: what the ``delegate`` tool calls to run a subagent (wired by the composition)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol

from quorum.domain.subagents import Subagent
from quorum.domain.tools import ToolResult


class Delegation(Protocol):
    """Runs a subagent as a child run of the current run (``current_run_id``)."""

    async def delegate(self, agent: Subagent, task: str, tools: Sequence[str]) -> ToolResult:
        """Run ``agent`` on ``task`` with only ``tools`` offered, to its end; its final answer is the output.

        The child run has its own run id and records the current run as its parent; it runs in
        the parent's workspace under the parent's review (policy, hooks, panel, human step); its
        events reach the parent's observers tagged with its run id. A child that does not end
        ``end_turn`` gives an error result saying how it ended. Must be cancellable (cancelling
        it cancels the child run). Never raises for what happens in the child.
        """
        ...
