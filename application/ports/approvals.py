"""Port to the calls waiting for a person: list them, and claim decisions on them exactly once.

A call deferred by ``hil_mode = "defer"`` is *pending* while its run is stopped
``awaiting_approval``, it has no result, and nobody has claimed a decision on it. Claiming is
atomic across processes: of two ``quorum approve`` racing for the same run, one wins and the
other gets a ``UsageError``, so an approved call is executed at most once.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from pydantic import BaseModel, ConfigDict

from quorum.domain.events import ApprovalRequested


class PendingCall(BaseModel):
    """A call waiting for a person, as ``quorum pending`` shows it.

    Attributes:
        run_id: the run it belongs to.
        task: that run's task.
        requested_at: when the run deferred it.
        request: the ``approval_requested`` event (tool, arguments, risk, why, votes so far).
    """

    model_config = ConfigDict(frozen=True)

    run_id: str
    task: str
    requested_at: datetime
    request: ApprovalRequested


class CallDecision(BaseModel):
    """A person's decision on one pending call.

    Attributes:
        call_id: the call decided.
        approved: approve (the call runs) or reject (the model sees ``reason``).
        by: who decided (``--by``, else ``$USER``).
        reason: why; required for a rejection by the CLI.
        decision_id: the claim this decision belongs to, when the claimer may repeat it (the
            Temporal engine's retried claim): a claim whose decisions are all recorded under
            this id already succeeded, and claiming it again succeeds without recording anything.
    """

    model_config = ConfigDict(frozen=True)

    call_id: str
    approved: bool
    by: str
    reason: str = ""
    decision_id: str | None = None


@runtime_checkable
class PendingApprovals(Protocol):
    """Where deferred calls wait. Synchronous and quick, like the run store it usually is.

    May raise ``ConfigurationError`` when the log cannot be opened.
    """

    def pending(self, run_id: str | None = None) -> list[PendingCall]:
        """The pending calls of ``run_id`` (all runs when None), oldest run first, in emission order."""
        ...

    def claim(self, run_id: str, decisions: Sequence[CallDecision]) -> None:
        """Record ``decisions`` and take over the run's continuation, all or nothing, atomically.

        On success the run is no longer ``awaiting_approval`` (it is being continued) and the
        decided calls are no longer pending; the caller must now continue the run.

        Idempotent per ``decision_id``: when every decision carries one and all are recorded
        under it, the claim already happened and returns without recording anything.

        Raises:
            UsageError: no such run; the run is not awaiting approval (finished, or being
                continued by another process); or a call is not pending in it (unknown, already
                decided or executed). Nothing is recorded then.
        """
        ...
