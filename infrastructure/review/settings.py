"""``[review]``: who reviews high-risk calls, how votes are counted, and the policy rules."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from quorum.domain.policy import PolicyRule
from quorum.domain.review import QuorumRule
from quorum.infrastructure.config.sections import Section
from quorum.infrastructure.review.quorum import DEFAULT_MAX_ARGUMENT_BYTES


def _model_id(value: str, what: str) -> str:
    provider, colon, model = value.partition(":")
    if not (provider.strip() and colon and model.strip()):
        raise ValueError(f"{what} {value!r}: expected 'provider:model'")
    return value


class ReviewerSeat(Section):
    """A panel seat given as a table: a reviewer model and the model answering while it cannot.

    ``{ model = "provider:model", fallback = "provider:model" }`` in ``[review] reviewers``; the
    fallback answers (and votes) when the model's request fails with an overload, a 5xx, a 429,
    a timeout or a connection error after the SDK's retries (``quorum.application.fallback``).
    """

    model: str
    fallback: str | None = None

    @field_validator("model")
    @classmethod
    def _model(cls, value: str) -> str:
        return _model_id(value, "reviewer model")

    @field_validator("fallback")
    @classmethod
    def _fallback(cls, value: str | None) -> str | None:
        return None if value is None else _model_id(value, "fallback")


class ReviewSettings(Section):
    """``[review]`` section.

    Attributes:
        reviewers: the panel: reviewer models (``provider:model``) or names of reviewers registered
            by plugins; empty means the human decides. A model listed twice votes twice (its
            votes are named ``model [2]``, …). A seat may be a table ``{ model, fallback }``
            (``ReviewerSeat``): its fallback model votes when the model cannot answer.
        rule: majority, unanimous, at_least:N or percentage:P over cast votes.
        min_votes: cast votes (approve or reject) needed for any decision; default a majority of
            the panel. Fewer reject the call ("not enough reviewers answered").
        vote_timeout_seconds: how long each reviewer may take; a late reviewer casts an error vote.
        escalate_on_reject: when the panel rejects, ask the human (``hil_mode``) instead.
        max_argument_bytes: reviewers always see a call's arguments whole; a call whose arguments
            (the JSON reviewers would see, in UTF-8 bytes) exceed this is rejected without a vote
            (and escalated under ``escalate_on_reject``). At least 1024; default 64 KiB.
        hil_mode: interactive (ask a human), auto_approve, auto_reject, or defer (do not wait: the
            run ends ``awaiting_approval`` and ``quorum approve``/``reject`` decide later).
        approval_timeout: seconds a deferred call waits for a person under the Temporal engine
            (default 24 h); then it is rejected and the run goes on.
        rules: ``[[review.rules]]`` policy tables (see ``quorum.domain.policy``), tried deny → ask →
            allow before any vote.
        reversible: ``ask`` (default): every high-risk call is reviewed. ``auto``: a call whose
            whole effect stays in the workspace and is covered by a checkpoint (a file tool's write
            or edit, a command the write sandbox confines) is approved without asking
            (``decided_by = "reversible"``); only with a working sandbox and checkpoints enabled.
    """

    reviewers: list[str | ReviewerSeat] = Field(default_factory=list)
    rule: str = "majority"
    min_votes: int | None = Field(None, ge=1)
    vote_timeout_seconds: float = Field(60.0, gt=0)
    escalate_on_reject: bool = False
    max_argument_bytes: int = Field(DEFAULT_MAX_ARGUMENT_BYTES, ge=1024)
    hil_mode: Literal["interactive", "auto_approve", "auto_reject", "defer"] = "interactive"
    approval_timeout: float = Field(86400.0, gt=0)
    rules: list[PolicyRule] = Field(default_factory=list)
    reversible: Literal["ask", "auto"] = "ask"

    @field_validator("rule")
    @classmethod
    def _rule_parses(cls, value: str) -> str:
        try:
            QuorumRule.parse(value)
        except Exception as error:
            raise ValueError(str(error)) from None
        return value

    @field_validator("reviewers")
    @classmethod
    def _reviewers_named(cls, value: list[str | ReviewerSeat]) -> list[str | ReviewerSeat]:
        for name in value:
            if isinstance(name, str) and (not name.strip() or name.startswith(":")):
                raise ValueError(f"reviewer {name!r}: expected 'provider:model' or a registered reviewer name")
        return value

    @model_validator(mode="after")
    def _panel_can_decide(self) -> ReviewSettings:
        if self.reviewers and self.min_votes is not None and self.min_votes > len(self.reviewers):
            raise ValueError(f"min_votes = {self.min_votes} can never be met by a panel of {len(self.reviewers)}")
        rule = QuorumRule.parse(self.rule)
        if self.reviewers and rule.kind == "at_least" and int(rule.value or 0) > len(self.reviewers):
            raise ValueError(f"rule = {self.rule!r} can never be met by a panel of {len(self.reviewers)}")
        return self

    def seats(self) -> list[ReviewerSeat]:
        """Every panel entry as a seat: a name (a model, or a plugin reviewer) and its fallback, if any."""
        return [ReviewerSeat.model_construct(model=r) if isinstance(r, str) else r for r in self.reviewers]

    def names(self) -> list[str]:
        """The panel's names in order: each seat's model (or plugin reviewer's name)."""
        return [seat.model for seat in self.seats()]

    def quorum_rule(self) -> QuorumRule:
        """The parsed ``rule``."""
        return QuorumRule.parse(self.rule)
