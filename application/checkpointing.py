"""``CheckpointingExecutor``: records the workspace around every call that can change it.

A call that can change the workspace is one that reaches the executor with a clearance other
than ``UNREVIEWED`` (today: ``APPROVED``): it passed review because it is high-risk (a file tool's write or edit, a
``run_command`` that is not a sandboxed read-only command, an MCP tool that does not say it is
read-only). Low-risk calls run ``UNREVIEWED`` and confined (read-only), so they are not recorded.
High-risk calls run one at a time (``ToolBatch``), so each is its own batch: before the run's
first one the workspace is recorded as the run's starting state, and after each one a checkpoint
names what it changed (a ``checkpoint`` event when it changed anything). ``quorum undo --to
CALL_ID`` can thus restore the state before any call.
"""

from __future__ import annotations

import asyncio

from quorum.application.ports.checkpoints import CheckpointStore
from quorum.application.ports.tool_executor import ToolExecutor, precheck_of
from quorum.application.run_context import current_run_id, emit_run_event
from quorum.domain.checkpoints import Checkpoint
from quorum.domain.events import CheckpointEvent
from quorum.domain.tools import Clearance, RiskAssessment, ToolCall, ToolDefinition, ToolResult, ToolSpec


def checkpoint_event(checkpoint: Checkpoint) -> CheckpointEvent:
    """The ``checkpoint`` event of ``checkpoint``."""
    return CheckpointEvent(
        checkpoint_id=checkpoint.checkpoint_id,
        call_ids=list(checkpoint.call_ids),
        created=list(checkpoint.paths("created")),
        modified=list(checkpoint.paths("modified")),
        deleted=list(checkpoint.paths("deleted")),
        unrestorable=list(checkpoint.unrestorable),
    )


class CheckpointingExecutor:
    """A ``ToolExecutor`` recording ``store`` before a run's first approved call and after each one.

    The run is ``current_run_id`` (set by ``RunAgent``; outside a run nothing is recorded). A
    store that cannot record the starting state fails the call before it runs (nothing that
    could not be undone runs); one that cannot record after it makes the call's result an error
    saying so (the change is then in the next checkpoint).
    """

    def __init__(self, inner: ToolExecutor, store: CheckpointStore) -> None:
        self._inner = inner
        self._store = store
        self._started: set[str] = set()
        self.precheck = precheck_of(inner) or _no_precheck

    @property
    def inner(self) -> ToolExecutor:
        """The executor that runs the calls."""
        return self._inner

    async def list_tools(self) -> ToolSpec:
        return await self._inner.list_tools()

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        return self._inner.assess_risk(call, tool)

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        run_id = current_run_id.get()
        if clearance is Clearance.UNREVIEWED or not run_id:  # any other clearance may write
            return await self._inner.execute(call, clearance=clearance)
        if run_id not in self._started:
            await asyncio.to_thread(self._store.baseline, run_id)
            self._started.add(run_id)
        try:
            return await self._inner.execute(call, clearance=clearance)
        finally:
            checkpoint = await asyncio.shield(asyncio.to_thread(self._store.record, run_id, [call.native_id]))
            if checkpoint.changes:
                emit_run_event(checkpoint_event(checkpoint))


def _no_precheck(call: ToolCall) -> str | None:
    return None
