"""``[review]``: who reviews high-risk calls, how votes are counted, and the policy rules."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator, model_validator

from quorum.domain.policy import PolicyRule
from quorum.domain.review import QuorumRule
from quorum.infrastructure.config.sections import Section
from quorum.infrastructure.review.quorum import DEFAULT_MAX_ARGUMENT_BYTES


class ReviewSettings(Section):
    """``[review]`` section.

    Attributes:
        reviewers: the panel: reviewer models (``provider:model``) or names of reviewers registered
            by plugins; empty means the human decides. A model listed twice votes twice (its
            votes are named ``model [2]``, …).
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
    """

    reviewers: list[str] = Field(default_factory=list)
    rule: str = "majority"
    min_votes: int | None = Field(None, ge=1)
    vote_timeout_seconds: float = Field(60.0, gt=0)
    escalate_on_reject: bool = False
    max_argument_bytes: int = Field(DEFAULT_MAX_ARGUMENT_BYTES, ge=1024)
    hil_mode: Literal["interactive", "auto_approve", "auto_reject", "defer"] = "interactive"
    approval_timeout: float = Field(86400.0, gt=0)
    rules: list[PolicyRule] = Field(default_factory=list)

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
    def _reviewers_named(cls, value: list[str]) -> list[str]:
        for name in value:
            if not name.strip() or name.startswith(":"):
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

    def quorum_rule(self) -> QuorumRule:
        """The parsed ``rule``."""
        return QuorumRule.parse(self.rule)
