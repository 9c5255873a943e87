"""``[hooks]``: ``[[hooks.EVENT]]`` tables, each a command run on the event."""

from __future__ import annotations

import re

from pydantic import Field, field_validator

from quorum.infrastructure.config.sections import Section

MAX_TIMEOUT = 3600.0


class HookSettings(Section):
    """One ``[[hooks.EVENT]]`` table.

    Attributes:
        command: run with ``sh -c`` in the workspace; the event's JSON payload on its stdin.
        matcher: a regular expression searched in the tool name (tool events only); None: every tool.
        timeout: seconds the hook may take; past it its process group is killed and the hook failed.
    """

    command: str = Field(min_length=1)
    matcher: str | None = None
    timeout: float = Field(30.0, gt=0, le=MAX_TIMEOUT)

    @field_validator("matcher")
    @classmethod
    def _compiles(cls, value: str | None) -> str | None:
        if value is not None:
            try:
                re.compile(value)
            except re.error as error:
                raise ValueError(f"not a regular expression: {error}") from None
        return value


class HooksSettings(Section):
    """``[hooks]``: the hooks of each event, in the order they are configured."""

    pre_tool_use: list[HookSettings] = Field(default_factory=list)
    post_tool_use: list[HookSettings] = Field(default_factory=list)
    user_prompt_submit: list[HookSettings] = Field(default_factory=list)
    stop: list[HookSettings] = Field(default_factory=list)
    session_start: list[HookSettings] = Field(default_factory=list)
    pre_compact: list[HookSettings] = Field(default_factory=list)
