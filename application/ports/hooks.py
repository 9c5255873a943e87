"""The hook port: the person's own programs, run on the events of a run (``[[hooks.EVENT]]``).

The application decides what a hook's answer means for the run (``quorum.application.hooks``);
the adapter only runs the configured commands and reads their answers into ``HookOutcome``s.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol

HookEvent = Literal["pre_tool_use", "post_tool_use", "user_prompt_submit", "stop", "session_start", "pre_compact"]
"""The events a hook runs on (the keys under ``[hooks]``)."""

HOOK_EVENTS: tuple[HookEvent, ...] = (
    "pre_tool_use",
    "post_tool_use",
    "user_prompt_submit",
    "stop",
    "session_start",
    "pre_compact",
)

Permission = Literal["allow", "deny", "ask"]


@dataclass(frozen=True)
class HookOutcome:
    """What one hook answered, read from its exit status and output (text already made safe to show).

    Attributes:
        command: the hook's command, as configured.
        permission: ``pre_tool_use``'s ``permissionDecision``; None: no opinion (or another event).
            Exit status 2 reads as ``deny``.
        reason: ``permissionDecisionReason``, a block's ``reason``, or exit 2's stderr.
        block: the hook blocked (``"decision": "block"``, or exit status 2 where that blocks).
        context: ``additionalContext`` (for ``user_prompt_submit`` and ``session_start``, plain
            stdout counts too).
        failure: why the hook gave no valid answer (another exit status, a timeout, output that
            is not the expected JSON, a command that could not start); None when it answered.
    """

    command: str
    permission: Permission | None = None
    reason: str = ""
    block: bool = False
    context: str = ""
    failure: str | None = None


class HookRunner(Protocol):
    """Runs the configured hooks of an event with one JSON payload on their stdin."""

    def configured(self, event: HookEvent, tool_name: str | None = None) -> bool:
        """Whether a hook of ``event`` would run (for tool events: one whose ``matcher`` names ``tool_name``). Quick."""
        ...

    async def run(
        self, event: HookEvent, payload: Mapping[str, Any], tool_name: str | None = None
    ) -> list[HookOutcome]:
        """Run every hook of ``event`` matching ``tool_name``, concurrently; their outcomes in configured order.

        ``payload`` is sent as one JSON object on each hook's stdin (the adapter adds ``cwd``).
        Never raises for a hook's failure: a crash, a timeout (its process group killed) or
        invalid output is an outcome with ``failure`` set. Cancellation kills the hooks running.
        """
        ...
