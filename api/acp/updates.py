"""A run's events as ACP ``session/update`` notifications, sent in order.

``EventTranslator`` turns each run event into updates (pure, but for reading a file to draw a
diff): the model's text becomes ``agent_message_chunk``; a call becomes a ``tool_call`` (title,
kind, status ``pending``, its diff for a write or an edit), then ``tool_call_update``s:
``in_progress`` when it starts (at once for a low-risk call, after the review for a reviewed one),
its progress lines, and ``completed`` or ``failed`` with its output. In plan mode a proposed
plan becomes a ``plan`` update (its steps ``pending``), sent again when approved, emptied when
rejected, and ``completed`` when the run ends its turn (``quorum.acp.plan_view``); the
``propose_plan`` call shows the numbered plan. Replaying a recorded run (``session/load``) uses
the same translation, with the user's messages added.

``UpdatePump`` is the run's observer: observers are called synchronously, so it queues the
updates and one task sends them, in order; ``flush`` waits until everything queued is written
(before a permission request, and before the prompt's response, as ACP requires).
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from acp import helpers
from acp.schema import ToolCallLocation

from quorum.acp.plan_view import plan_content, plan_title, plan_update, proposed_plan
from quorum.acp.tool_view import FileDiff, diff_of, file_path, kind_of, title_of
from quorum.domain.events import (
    PlanProposed,
    PlanReviewed,
    ReasoningEvent,
    ReviewEvent,
    RunEvent,
    RunFinished,
    RunStarted,
    RunStopReason,
    TextDelta,
    ToolCallEvent,
    ToolProgress,
    ToolResultEvent,
)
from quorum.domain.plans import Plan
from quorum.domain.secrets import Redactor
from quorum.domain.subagents import DELEGATE
from quorum.domain.tools import RiskLevel
from quorum.infrastructure.tools.workspace import Workspace

PROGRESS_LINES = 20
"""Progress lines of a running call kept in its update (the latest ones)."""

log = logging.getLogger("quorum.acp")

Update = Any
"""One ACP session update (a ``acp.schema`` model the SDK validates)."""


class EventTranslator:
    """Run events → ACP session updates for one session (see the module docstring).

    Args:
        workspace: the session's workspace (diffs and file locations are drawn in it).
        redactor: known secrets, replaced in file text read for a diff (events are already redacted).
        replay: also send the user's messages (``run_started`` tasks), for ``session/load``.
    """

    def __init__(self, workspace: Workspace, redactor: Redactor, *, replay: bool = False) -> None:
        self._workspace = workspace
        self._redactor = redactor
        self._replay = replay
        self._diffs: dict[str, FileDiff] = {}
        self._progress: dict[str, list[str]] = {}
        self._plan: Plan | None = None  # the approved plan of the run under way
        self._own: str | None = None  # the run under way (a delegation's child runs are others)
        self._delegations: list[str] = []  # the run's delegate calls, in order
        self._children: dict[str, str | None] = {}  # child run id → its delegate call

    def diff(self, call_id: str) -> FileDiff | None:
        """The diff drawn when ``call_id`` was announced, if any."""
        return self._diffs.get(call_id)

    def updates(self, event: RunEvent) -> list[Update]:
        """The updates ``event`` calls for (none for events an editor does not show)."""
        if self._is_child(event):
            return self._child_progress(event)
        if isinstance(event, ToolCallEvent) and event.name == DELEGATE:
            self._delegations.append(event.id)
        if isinstance(event, TextDelta):
            return [helpers.update_agent_message_text(event.text)] if event.text else []
        if isinstance(event, ReasoningEvent):  # an editor shows it as the agent's thought, apart from its answer
            return [helpers.update_agent_thought_text(event.text)] if event.text else []
        if isinstance(event, RunStarted):
            replayed = self._replay and not event.resumed and event.task
            return [helpers.update_user_message_text(event.task)] if replayed else []
        if isinstance(event, ToolCallEvent):
            return self._announced(event)
        if isinstance(event, ReviewEvent) and event.approved:
            return [helpers.update_tool_call(event.call_id, status="in_progress")]
        if isinstance(event, ToolProgress) and event.message:
            lines = self._progress.setdefault(event.call_id, [])
            lines.append(event.message)
            del lines[:-PROGRESS_LINES]
            content = [*self._diff_content(event.call_id), _text("\n".join(lines))]
            return [helpers.update_tool_call(event.call_id, status="in_progress", content=content)]
        if isinstance(event, ToolResultEvent):
            return [self._finished(event)]
        return self._plan_updates(event)

    def _is_child(self, event: RunEvent) -> bool:
        """Whether ``event`` is a delegation's child run's (tagged with its run id)."""
        if isinstance(event, RunStarted) and self._own in (None, event.run_id):
            self._own = event.run_id
            return False
        if event.run_id is None or event.run_id == self._own:
            if isinstance(event, RunFinished):
                self._own = None
            return False
        return True

    def _child_progress(self, event: RunEvent) -> list[Update]:
        """A child run's event as a line of progress of the delegate call that started it."""
        child = str(event.run_id)
        if child not in self._children:
            taken = set(self._children.values())
            self._children[child] = next((c for c in self._delegations if c not in taken), None)
        call_id = self._children[child]
        line = _child_line(event)
        if call_id is None or line is None:
            return []
        return self.updates(ToolProgress(call_id=call_id, message=line))

    def _plan_updates(self, event: RunEvent) -> list[Update]:
        """Plan mode's ``plan`` updates: proposed and approved (pending), rejected (none), done (completed)."""
        if isinstance(event, PlanProposed):
            return [plan_update(event.plan)]
        if isinstance(event, PlanReviewed):
            self._plan = event.plan if event.approved else None
            return [plan_update(self._plan)]
        if isinstance(event, RunFinished) and self._plan is not None:
            plan, self._plan = self._plan, None
            if event.stop_reason == RunStopReason.END_TURN:  # the model says it is done; nothing finer is known
                return [plan_update(plan, "completed")]
        return []

    def _announced(self, event: ToolCallEvent) -> list[Update]:
        arguments = event.arguments
        # Replayed calls have no diff: the file on disk is what they left, not what they found.
        diff = None if self._replay else diff_of(event.name, arguments, self._workspace)
        if diff is not None:
            old = self._redactor.text(diff.old) if diff.old is not None else None
            self._diffs[event.id] = FileDiff(diff.path, old, diff.new)
        path = file_path(event.name, arguments, self._workspace)
        plan = proposed_plan(event.name, arguments)
        start = helpers.start_tool_call(
            event.id,
            plan_title(plan) if plan is not None else title_of(event.name, arguments),
            kind=kind_of(event.name),
            status="pending",
            content=(plan_content(plan) if plan is not None else self._diff_content(event.id)) or None,
            locations=[ToolCallLocation(path=str(path))] if path is not None else None,
            raw_input=arguments,
        )
        if event.risk == RiskLevel.LOW:  # low-risk calls run at once, unreviewed
            return [start, helpers.update_tool_call(event.id, status="in_progress")]
        return [start]

    def _finished(self, event: ToolResultEvent) -> Update:
        self._progress.pop(event.call_id, None)
        failed = event.is_error or event.is_rejected
        content = [] if failed else self._diff_content(event.call_id)
        if event.output:
            content.append(_text(event.output))
        return helpers.update_tool_call(
            event.call_id, status="failed" if failed else "completed", content=content, raw_output=event.output
        )

    def tool_content(self, call_id: str) -> list[Any]:
        """The content a permission request shows for ``call_id``: its diff, if any."""
        return self._diff_content(call_id)

    def _diff_content(self, call_id: str) -> list[Any]:
        diff = self._diffs.get(call_id)
        if diff is None:
            return []
        return [helpers.tool_diff_content(diff.path, diff.new, diff.old)]


def _text(text: str) -> Any:
    return helpers.tool_content(helpers.text_block(text))


Send = Callable[[Update], Awaitable[None]]


class UpdatePump:
    """A run observer sending each event's updates, in order, through ``send`` (one task)."""

    def __init__(self, translator: EventTranslator, send: Send, keep: Callable[[RunEvent], None]) -> None:
        self.translator = translator
        self._send = send
        self._keep = keep
        self._queue: asyncio.Queue[Update] = asyncio.Queue()
        self._task: asyncio.Task[None] | None = None

    def on_event(self, event: RunEvent) -> None:
        self._keep(event)
        for update in self.translator.updates(event):
            self._queue.put_nowait(update)
        if self._task is None:
            self._task = asyncio.get_running_loop().create_task(self._run(), name="acp updates")

    async def _run(self) -> None:
        while True:
            update = await self._queue.get()
            try:
                await self._send(update)
            except Exception as error:  # a closed connection: the run goes on, recorded in the log
                log.warning("a session update could not be sent: %s", error)
            finally:
                self._queue.task_done()

    async def flush(self) -> None:
        """Until every queued update has been written."""
        await self._queue.join()

    async def close(self) -> None:
        """Send what is queued, then stop the sending task."""
        await self.flush()
        if self._task is not None:
            self._task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._task
            self._task = None


def _child_line(event: RunEvent) -> str | None:
    """What a delegate call's progress says of its child run's ``event`` (None: nothing)."""
    if isinstance(event, RunStarted):
        return f"subagent run {event.run_id} · {event.model}"
    if isinstance(event, ToolCallEvent):
        return f"↳ {event.name} ({event.risk} risk)"
    if isinstance(event, ReviewEvent) and not event.approved:
        return f"↳ {event.name} rejected: {event.reason}"
    if isinstance(event, ToolResultEvent) and event.is_error and not event.is_rejected:
        return f"↳ {event.name} failed"
    if isinstance(event, RunFinished):
        return f"subagent finished: {event.stop_reason}"
    return None
