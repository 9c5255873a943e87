"""``RunHooks``: what the person's hooks (``[[hooks.EVENT]]``) mean for one run.

The payload each hook receives uses Claude Code's field names, so existing hook scripts work; its
strings go through the run's redactor first (a hook is sent no secret Quorum knows).
``transcript_path`` is always null: the run's events are in the run log (``quorum logs show``).

A ``pre_tool_use`` hook is one more reviewer, and fails closed: any hook that crashes, times out
or answers anything but the documented JSON denies the call. Its decisions, combined over every
matching hook: a ``deny`` wins, then ``ask``, then ``allow`` (``HookVerdict``); the tool batch
applies them after the policy ``deny`` rules and before the usual review (decision 250).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from quorum.application import model_wording as say
from quorum.application.ports.hooks import HookEvent, HookOutcome, HookRunner, Permission
from quorum.domain.review import ReviewDecision
from quorum.domain.secrets import Redactor
from quorum.domain.tools import ToolCall

EVENT_NAMES: dict[HookEvent, str] = {
    "pre_tool_use": "PreToolUse",
    "post_tool_use": "PostToolUse",
    "user_prompt_submit": "UserPromptSubmit",
    "stop": "Stop",
    "session_start": "SessionStart",
    "pre_compact": "PreCompact",
}
"""Each event's ``hook_event_name`` in the payload (Claude Code's names)."""

_RANK: dict[Permission, int] = {"deny": 0, "ask": 1, "allow": 2}


@dataclass(frozen=True)
class HookVerdict:
    """What the ``pre_tool_use`` hooks decided about one call.

    Attributes:
        permission: ``deny`` (a hook denied or failed), ``ask`` (the usual review decides) or
            ``allow`` (approved as a policy ``allow`` rule approves).
        decision: the review decision to record (``decided_by="hook"``, the deciding hook's command).
    """

    permission: Permission
    decision: ReviewDecision


def verdict_of(outcomes: Sequence[HookOutcome]) -> HookVerdict | None:
    """The combined verdict of ``outcomes`` (a failure is a denial); None when no hook had an opinion."""
    best: tuple[Permission, HookOutcome] | None = None
    for outcome in outcomes:
        permission: Permission | None = "deny" if outcome.failure is not None else outcome.permission
        if permission is not None and (best is None or _RANK[permission] < _RANK[best[0]]):
            best = (permission, outcome)
    if best is None:
        return None
    permission, outcome = best
    if outcome.failure is not None:
        reason = say.hook_failed("pre_tool_use", outcome.command, outcome.failure)
    else:
        reason = outcome.reason or (say.hook_denied(outcome.command) if permission == "deny" else "")
    decision = ReviewDecision(approved=permission == "allow", decided_by="hook", reason=reason, hook=outcome.command)
    return HookVerdict(permission, decision)


@dataclass(frozen=True)
class PromptCheck:
    """What the ``user_prompt_submit`` hooks made of a message.

    Attributes:
        blocked_by: the command of the hook that blocked it (or failed on it); None: it goes on.
        detail: why it was blocked, in a sentence (the run's stop detail).
        context: what the hooks add after the message.
    """

    blocked_by: str | None = None
    detail: str = ""
    context: str = ""


class RunHooks:
    """The hooks of one run: payloads built and redacted, answers read as decisions and text.

    ``session_id`` is the conversation's root run id (this run's id when it starts one).
    """

    def __init__(self, runner: HookRunner, redactor: Redactor, *, session_id: str, run_id: str) -> None:
        self._runner = runner
        self._redactor = redactor
        self._session_id = session_id
        self._run_id = run_id

    def names(self, event: HookEvent, tool_name: str | None = None) -> bool:
        """Whether a hook of ``event`` runs (for tool events: on calls to ``tool_name``)."""
        return self._runner.configured(event, tool_name)

    async def _run(self, event: HookEvent, **fields: Any) -> list[HookOutcome]:
        tool_name = fields.get("tool_name")
        if not self._runner.configured(event, tool_name):
            return []
        payload = {
            "hook_event_name": EVENT_NAMES[event],
            "session_id": self._session_id,
            "run_id": self._run_id,
            "transcript_path": None,
            **fields,
        }
        redacted, _ = self._redactor.data(payload)
        try:
            return await self._runner.run(event, redacted, tool_name)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the port says never raise; if it does, it counts as a failed hook
            return [HookOutcome(f"[hooks.{event}]", failure=f"{type(error).__name__}: {error}")]

    async def before_call(self, call: ToolCall) -> HookVerdict | None:
        """The ``pre_tool_use`` hooks' verdict on ``call``, before it is reviewed or run; None: no opinion."""
        outcomes = await self._run(
            "pre_tool_use",
            tool_name=call.name,
            tool_input=call.arguments,
            tool_use_id=call.native_id,
        )
        return verdict_of(outcomes)

    async def after_call(self, call: ToolCall, output: str, *, is_error: bool) -> str:
        """What the ``post_tool_use`` hooks add to ``call``'s result (it already ran); empty for nothing."""
        outcomes = await self._run(
            "post_tool_use",
            tool_name=call.name,
            tool_input=call.arguments,
            tool_use_id=call.native_id,
            tool_response={"output": output, "is_error": is_error},
        )
        added = []
        for outcome in outcomes:
            if outcome.failure is not None:
                added.append(say.hook_post_failed(outcome.command, outcome.failure))
            for text in (outcome.reason if outcome.block else "", outcome.context):
                if text:
                    added.append(say.hook_feedback(outcome.command, text))
        return "\n".join(added)

    async def on_prompt(self, prompt: str) -> PromptCheck:
        """The ``user_prompt_submit`` hooks on ``prompt``: blocked, or the context they add.

        Fails closed: a hook that fails blocks the message, the reason saying why.
        """
        context = []
        for outcome in await self._run("user_prompt_submit", prompt=prompt):
            if outcome.failure is not None or outcome.block:
                why = outcome.failure if outcome.failure is not None else outcome.reason
                return PromptCheck(outcome.command, say.prompt_blocked(outcome.command, why))
            if outcome.context:
                context.append(outcome.context)
        return PromptCheck(context="\n\n".join(context))

    async def on_stop(self, *, stop_hook_active: bool) -> str | None:
        """The reason a ``stop`` hook gave for going on (``"decision": "block"``, or exit 2), or None to stop."""
        for outcome in await self._run("stop", stop_hook_active=stop_hook_active):
            if outcome.block and outcome.failure is None:
                return outcome.reason or say.hook_denied(outcome.command)
        return None

    async def on_session_start(self, source: str) -> str:
        """Run the ``session_start`` hooks (``source``: ``startup`` or ``resume``); the context they add."""
        outcomes = await self._run("session_start", source=source)
        return "\n\n".join(o.context for o in outcomes if o.context and o.failure is None)

    async def before_compaction(self, trigger: str) -> None:
        """Run the ``pre_compact`` hooks (``trigger``: ``auto`` or ``manual``); their answers are not used."""
        await self._run("pre_compact", trigger=trigger, custom_instructions="")
