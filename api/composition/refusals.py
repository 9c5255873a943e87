"""``RefusingStep``: a human step that rejects calls inside "always reject" scopes before anything else."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from quorum.domain.review import ReviewDecision

if TYPE_CHECKING:
    from quorum.application.ports.reviewer import HumanStep, ReviewContext
    from quorum.domain.review import Vote
    from quorum.domain.tools import ToolCall
    from quorum.infrastructure.review.scope import ApprovalScope
    from quorum.infrastructure.tools.workspace import Workspace


class RefusingStep:
    """A ``HumanStep`` rejecting calls inside a scope of ``refused``, else deciding as ``inner`` does.

    Checked before ``inner`` so that neither a question nor a mode (auto-approve) lets a call the
    person rejected for good through. ``refused`` is read at each call: a person's "always
    reject" given during the run applies to the run's later calls.
    """

    def __init__(self, inner: HumanStep, refused: Sequence[ApprovalScope], workspace: Workspace) -> None:
        self._inner = inner
        self._refused = refused
        self._workspace = workspace

    async def decide(
        self, call: ToolCall, context: ReviewContext, *, why: str, votes: Sequence[Vote] = ()
    ) -> ReviewDecision:
        scope = next((s for s in self._refused if s.covers(call, self._workspace)), None)
        if scope is not None:
            return ReviewDecision(
                approved=False,
                decided_by="human",
                votes=tuple(votes),
                reason=f"rejected by the user for the rest of this session: always reject {scope.label}",
            )
        return await self._inner.decide(call, context, why=why, votes=votes)
