"""Reviewer models of the panel resolved before a run, so a panel that cannot vote is caught at start.

Without this, a reviewer naming an unknown provider, or a provider with no key, would only fail
when the first high-risk call is reviewed — and then every such call would be rejected.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.domain.errors import ConfigurationError, QuorumError
from quorum.infrastructure.review.name_checks import NameProblem
from quorum.infrastructure.review.settings import ReviewSettings

if TYPE_CHECKING:
    from quorum.application.ports.llm import LlmGateway
    from quorum.infrastructure.plugins.registries import ReviewerRegistry


def _bare(error: QuorumError) -> str:
    """The error's message without the ``source: key:`` prefix a ConfigurationError adds."""
    text = str(error)
    if isinstance(error, ConfigurationError):
        prefix = ": ".join(part for part in (error.source, error.key) if part)
        if prefix:
            return text.removeprefix(f"{prefix}: ")
    return text


def check_panel(review: ReviewSettings, registry: ReviewerRegistry, gateway: LlmGateway) -> list[NameProblem]:
    """Open a session for every reviewer model on the panel; each one that cannot be opened is a problem.

    Plugin reviewers (names without ``:`` that a plugin registered) are left to their plugin.
    Opening a session makes no request: provider sessions create their client on the first
    request, and offline ones (``test``, ``scripted:PATH``) only read their script.

    Args:
        review: the ``[review]`` section.
        registry: the reviewers plugins registered.
        gateway: the LLM gateway the panel would use.
    """
    problems = []
    for i, seat in enumerate(review.seats()):
        if ":" not in seat.model and registry.get(seat.model) is not None:
            continue
        for name, what in ((seat.model, "reviewer"), (seat.fallback, "fallback")):
            if name is None:
                continue
            try:
                gateway.session(name)
            except QuorumError as error:
                message = f"{what} {name!r} cannot be used: {_bare(error)}"
                problems.append(NameProblem(f"review.reviewers[{i}]", "review.reviewers", message))
    return problems
