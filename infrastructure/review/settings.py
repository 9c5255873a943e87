"""``[review]``: who reviews high-risk calls and how votes are counted."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, field_validator

from quorum.domain.review import QuorumRule
from quorum.infrastructure.config.sections import Section


class ReviewSettings(Section):
    """``[review]`` section.

    Attributes:
        reviewers: reviewer models (``provider:model``); empty means the human decides.
        rule: majority, unanimous, at_least:N or percentage:P over cast votes.
        hil_mode: interactive (ask a human), auto_approve or auto_reject.
    """

    reviewers: list[str] = Field(default_factory=list)
    rule: str = "majority"
    hil_mode: Literal["interactive", "auto_approve", "auto_reject"] = "interactive"

    @field_validator("rule")
    @classmethod
    def _rule_parses(cls, value: str) -> str:
        try:
            QuorumRule.parse(value)
        except Exception as error:
            raise ValueError(str(error)) from None
        return value
