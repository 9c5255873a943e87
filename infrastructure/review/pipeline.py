"""Building the review a run uses: the application's ``ReviewGate`` over this layer's parts."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.application.review_gate import ReviewGate
from quorum.infrastructure.review.call_viewer import WorkspaceCallViewer
from quorum.infrastructure.review.factory import build_human, build_quorum, review_settings
from quorum.infrastructure.review.human import HumanReviewer
from quorum.infrastructure.review.quorum import QuorumReviewer

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.contracts import ReviewerContext
    from quorum.infrastructure.plugins.registries import ReviewerRegistry


def build_reviewer(context: ReviewerContext, registry: ReviewerRegistry | None = None) -> ReviewGate:
    """The reviewer a run uses: a ``ReviewGate`` (policy rules → quorum → human) from ``[review]``.

    This is the one function the composition (``quorum.composition``) calls, once per run (the human step remembers
    "always approve" answers for the run it was built for). Rules see paths resolved in the
    workspace and the simple commands of shell lines (``WorkspaceCallViewer``).

    Args:
        context: settings, the gateway for reviewer models, whether a human can be asked
            (``interactive``), ``--yes`` (``auto_approve``), the workspace and an optional prompt
            adapter (a ``HumanPrompt``; the terminal one is used when ``interactive`` and none is given).
        registry: the plugin catalog's reviewers, so plugin reviewers can sit on the panel.

    Raises:
        ConfigurationError: see ``build_quorum``.
    """
    settings = review_settings(context)
    return ReviewGate(
        rules=settings.rules,
        panel=build_quorum(context, registry),
        human=build_human(context),
        escalate_on_reject=settings.escalate_on_reject,
        viewer=WorkspaceCallViewer(context.workspace),
        reversible=context.reversible,
    )


def describe_pipeline(reviewer: object) -> str:
    """One line saying how calls are reviewed (for ``review-check`` and ``config show``)."""
    if not isinstance(reviewer, ReviewGate):
        return type(reviewer).__name__
    parts = [f"{len(reviewer.rules)} policy rule(s)"]
    if isinstance(reviewer.panel, QuorumReviewer):
        parts.append(f"panel {', '.join(reviewer.panel.panel)}")
    else:
        parts.append("no panel")
    if isinstance(reviewer.human, HumanReviewer):
        parts.append(f"human step {reviewer.human.mode}")
    if reviewer.escalate_on_reject:
        parts.append("rejections escalate to the human")
    if reviewer.reversible.active:
        parts.append("reversible calls approved without asking")
    return "; ".join(parts)
