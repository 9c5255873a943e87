"""Built-in plugin registering ``[review]`` and the reviewers ``quorum`` (a panel of models), ``human``, ``auto``.

Registration is cheap: the factories import the review modules only when called.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.review.settings import ReviewSettings

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.contracts import ReviewerContext
    from quorum.infrastructure.plugins.registries import ConfigSectionRegistry, ReviewerRegistry
    from quorum.infrastructure.review.auto import AutoReviewer
    from quorum.infrastructure.review.human import HumanReviewer
    from quorum.infrastructure.review.quorum import QuorumReviewer


def _quorum(context: ReviewerContext) -> QuorumReviewer:
    """A panel of reviewer models ([review] reviewers) voting through submit_verdict."""
    from quorum.infrastructure.review.factory import build_quorum

    reviewer = build_quorum(context)
    if reviewer is None:
        raise ConfigurationError("the quorum reviewer needs [review] reviewers", key="review.reviewers")
    return reviewer


def _human(context: ReviewerContext) -> HumanReviewer:
    """Asks a person on the terminal (or decides by hil_mode / --yes); rejects when nobody can answer."""
    from quorum.infrastructure.review.factory import build_human

    return build_human(context)


def _auto(context: ReviewerContext) -> AutoReviewer:
    """Approves every call under --yes or hil_mode = auto_approve, otherwise rejects every call."""
    from quorum.infrastructure.review.factory import build_auto

    return build_auto(context)


@hookimpl
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    registry.add("review", ReviewSettings)


@hookimpl
def quorum_register_reviewers(registry: ReviewerRegistry) -> None:
    registry.add("quorum", _quorum)
    registry.add("human", _human)
    registry.add("auto", _auto)
