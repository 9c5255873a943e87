"""The premises of ``[review] reversible = "auto"`` as this process finds them (``ReversibleApproval``)."""

from __future__ import annotations

from quorum.application.reversible import ReversibleApproval
from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.review.settings import ReviewSettings
from quorum.infrastructure.sandbox.detect import sandbox_status
from quorum.infrastructure.tools.settings import ToolsSettings


def reversible_approval(settings: Settings, *, checkpoints: bool) -> ReversibleApproval:
    """Whether confined calls are approved unasked in runs under ``settings``; ``checkpoints``: the run's are on.

    The sandbox is probed (once per process) only when ``reversible = "auto"`` asks for it.
    """
    if settings.section(ReviewSettings).reversible != "auto":
        return ReversibleApproval()
    sandbox = settings.section(ToolsSettings).sandbox
    status = sandbox_status(sandbox.mode, sandbox.program)
    problem = "" if status.enforced else ("[tools.sandbox] mode = 'off'" if status.mode == "off" else status.explain())
    return ReversibleApproval(
        requested=True, checkpoints=checkpoints, sandboxed=status.enforced, sandbox_problem=problem
    )
