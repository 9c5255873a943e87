"""Reversible means less review: when a call that can be undone is approved without asking.

``[review] reversible = "auto"`` approves a high-risk call whose whole effect stays in the workspace
on files a checkpoint covers (``RiskAssessment.confined``: a built-in file tool's write or edit, a
command the write sandbox confines). It holds only while every premise does: the user asked for it,
the run's checkpoints are enabled (so ``quorum undo`` can take the call back), and a sandbox works
(so a confined command really is confined). The composition states each premise; this module
decides from them and says which one is missing (``quorum doctor``).
"""

from __future__ import annotations

from dataclasses import dataclass

from quorum.domain.review import ReviewDecision

REASON = "sandboxed, checkpointed"
"""The reason recorded with every reversible approval."""


@dataclass(frozen=True)
class ReversibleApproval:
    """The premises of ``[review] reversible = "auto"`` for one run.

    Attributes:
        requested: ``[review] reversible = "auto"``.
        checkpoints: the run's checkpoints are enabled (``[checkpoints] enabled``).
        sandboxed: a sandbox works in this process (bubblewrap probed, mode not ``off``).
        sandbox_problem: why no sandbox works, in words (shown by ``why_not``).
    """

    requested: bool = False
    checkpoints: bool = False
    sandboxed: bool = False
    sandbox_problem: str = ""

    @property
    def active(self) -> bool:
        """Confined calls are approved without asking."""
        return self.requested and self.checkpoints and self.sandboxed

    def why_not(self) -> str | None:
        """Why nothing is approved as reversible although it was requested; None when active or not requested."""
        if not self.requested or self.active:
            return None
        if not self.sandboxed:
            return "no working sandbox" + (f" ({self.sandbox_problem})" if self.sandbox_problem else "")
        return "checkpoints are disabled ([checkpoints] enabled = false): nothing could be undone"

    def decide(self, confined: bool) -> ReviewDecision | None:
        """The approval of a call assessed ``confined``, or None when it must be reviewed as usual."""
        if not (self.active and confined):
            return None
        return ReviewDecision(approved=True, decided_by="reversible", reason=REASON)
