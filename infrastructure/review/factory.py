"""Building the parts of the review pipeline from ``[review]``: the panel, the human step, auto."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.review.auto import AutoReviewer
from quorum.infrastructure.review.human import HilMode, HumanPrompt, HumanReviewer
from quorum.infrastructure.review.quorum import QuorumReviewer
from quorum.infrastructure.review.settings import ReviewSettings
from quorum.infrastructure.review.voters import ModelVoter, ReviewerVoter, Voter
from quorum.infrastructure.tools.workspace import Workspace

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.contracts import ReviewerContext
    from quorum.infrastructure.plugins.registries import ReviewerRegistry

BUILTIN_REVIEWERS = frozenset({"quorum", "human", "auto"})
"""Names the built-in plugin registers; they cannot sit on a panel."""


def review_settings(context: ReviewerContext) -> ReviewSettings:
    """The ``[review]`` section of ``context.settings``."""
    return context.settings.section(ReviewSettings)


def hil_mode(context: ReviewerContext) -> HilMode:
    """``--yes`` makes this run ``auto_approve``; otherwise ``[review] hil_mode``."""
    return "auto_approve" if context.auto_approve else review_settings(context).hil_mode


def workspace(context: ReviewerContext) -> Workspace | None:
    """The workspace file paths are resolved in, when the context names one."""
    return Workspace(context.workspace) if context.workspace is not None else None


def human_prompt(context: ReviewerContext) -> HumanPrompt | None:
    """The prompt adapter when a human can be asked: the context's, else the terminal; else None."""
    if not context.interactive:
        return None
    if context.prompt is not None:
        return context.prompt
    from quorum.infrastructure.review.terminal import TerminalPrompt

    return TerminalPrompt(workspace=workspace(context))


def build_human(context: ReviewerContext) -> HumanReviewer:
    """The human step for this run."""
    return HumanReviewer(hil_mode(context), human_prompt(context), workspace=workspace(context), always=context.always)


def build_auto(context: ReviewerContext) -> AutoReviewer:
    """Approves everything under ``--yes`` / ``hil_mode = "auto_approve"``, else rejects everything."""
    if hil_mode(context) == "auto_approve":
        return AutoReviewer(True, "auto-approved (--yes or hil_mode = auto_approve)")
    return AutoReviewer(False, "auto-rejected (no human review available to this reviewer)")


def build_quorum(context: ReviewerContext, registry: ReviewerRegistry | None = None) -> QuorumReviewer | None:
    """The panel from ``[review] reviewers``, or None when it is empty.

    An entry naming a reviewer registered by a plugin (``registry``) seats that reviewer; any
    other entry is a reviewer model ``provider:model`` opened through ``context.gateway`` (with
    its seat's fallback model, if it has one).

    Raises:
        ConfigurationError: a model panel without a gateway, or a built-in reviewer on the panel.
    """
    settings = review_settings(context)
    voters: list[Voter] = []
    seats: dict[str, int] = {}
    for listed in settings.seats():
        name = listed.model
        seats[name] = seats.get(name, 0) + 1
        seat = name if seats[name] == 1 else f"{name} [{seats[name]}]"
        entry = registry.get(name) if registry is not None and ":" not in name else None
        if name in BUILTIN_REVIEWERS and entry is not None:
            raise ConfigurationError(
                f"{name!r} cannot sit on the review panel; list reviewer models or plugin reviewers",
                key="review.reviewers",
            )
        if entry is not None:
            voters.append(ReviewerVoter(seat, entry.value(context)))
        elif context.gateway is None:
            raise ConfigurationError(f"reviewer model {name!r} needs an LLM gateway", key="review.reviewers")
        else:
            voters.append(ModelVoter(context.gateway, name, seat=seat, fallback=listed.fallback))
    if not voters:
        return None
    return QuorumReviewer(
        voters,
        rule=settings.quorum_rule(),
        min_votes=settings.min_votes,
        vote_timeout=settings.vote_timeout_seconds,
        max_argument_bytes=settings.max_argument_bytes,
    )
