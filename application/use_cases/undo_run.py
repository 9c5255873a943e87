"""``UndoRun``: put back every file a run changed as it was before the run (or before one of its calls).

Plan, show, apply: ``plan`` says what an undo would do (files created → removed, modified →
restored, deleted → recreated, with a diff of text files and the modes) and which files changed
since the run's last checkpoint (conflicts); ``apply`` does it, refusing on conflicts unless
forced. An undo is itself recorded as a run (its own run id, a ``checkpoint`` of what it
changed), so undoing the undo redoes. See docs/undo.md and docs/decisions/240-checkpoints.md.
"""

from __future__ import annotations

import asyncio
import difflib
import uuid
from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import BaseModel, ConfigDict

from quorum.application.checkpointing import checkpoint_event
from quorum.application.ports.checkpoints import CheckpointStore
from quorum.application.ports.observer import RunObserver
from quorum.domain.checkpoints import Checkpoint, FileKind, FileState
from quorum.domain.errors import NothingToUndo, UndoConflict
from quorum.domain.events import RunFinished, RunStarted, RunStopReason
from quorum.domain.responses import RunUsage

UndoAction = Literal["remove", "restore", "recreate"]
"""``remove`` a path the run created, ``restore`` one it modified, ``recreate`` one it deleted."""

UNDO_MODEL = "quorum:undo"
"""The ``model`` of an undo's own run in the run log (no model answers it)."""

MAX_DIFF_LINES = 400


class UndoRequest(BaseModel):
    """What to undo.

    Attributes:
        run_id: the run; None: the last run with checkpoints in this workspace (an undo included).
        to_call: restore the state before this call of the run (a call id of its ``tool_call``
            events) instead of before the run.
    """

    model_config = ConfigDict(frozen=True)

    run_id: str | None = None
    to_call: str | None = None


class UndoStep(BaseModel):
    """What the undo does to one path.

    Attributes:
        path: relative to the workspace, ``/``-separated.
        action: remove, restore or recreate.
        kind: what the path is after the undo (before the run); for ``remove``, what it is now.
        mode_now: its mode as the run left it (None: absent).
        mode_then: the mode it gets back (None: removed).
        diff: a unified diff from the run's content to the restored one, for text files (None:
            binary, a link, a directory, or unrestorable).
        restorable: False when the content before the run was not kept (over the size limit):
            the path is left as it is.
    """

    model_config = ConfigDict(frozen=True)

    path: str
    action: UndoAction
    kind: FileKind
    mode_now: int | None
    mode_then: int | None
    diff: str | None = None
    restorable: bool = True


class UndoPlan(BaseModel):
    """What undoing ``run_id`` (to the state before ``to_call``, if set) would do, and what stands in its way.

    Attributes:
        run_id: the run to undo.
        to_call: the call whose prior state is restored; None: the state before the run.
        steps: one per path, sorted by path.
        conflicts: paths changed since the run's last checkpoint (by a person or a later run);
            ``apply`` refuses while there are any, unless forced.
    """

    model_config = ConfigDict(frozen=True)

    run_id: str
    to_call: str | None = None
    steps: tuple[UndoStep, ...] = ()
    conflicts: tuple[str, ...] = ()

    @property
    def unrestorable(self) -> tuple[str, ...]:
        """Paths the undo leaves as they are: their content before the run was not kept."""
        return tuple(step.path for step in self.steps if not step.restorable)


class UndoResult(BaseModel):
    """An undo: its plan, whether it was applied, and its own run (``undo_run_id``: undo it to redo).

    Attributes:
        run_id: the run undone.
        undo_run_id: the undo's own run in the run log; None when not applied (a dry run).
        plan: what was (or, not applied, would be) done.
        applied: False for a dry run: nothing was changed.
    """

    model_config = ConfigDict(frozen=True)

    run_id: str
    undo_run_id: str | None
    plan: UndoPlan
    applied: bool = True


class UndoRun:
    """Undoes runs in the workspace of ``store``; each undo is recorded to ``observer`` as a run of its own."""

    def __init__(
        self,
        *,
        store: CheckpointStore,
        observer: RunObserver,
        new_run_id: Callable[[], str] = lambda: uuid.uuid4().hex[:16],
    ) -> None:
        self._store = store
        self._observer = observer
        self._new_run_id = new_run_id

    async def plan(self, request: UndoRequest) -> UndoPlan:
        """What undoing ``request`` would do; changes nothing.

        Raises:
            NothingToUndo: no run with checkpoints here (``run_id`` unknown, or it changed
                nothing), or ``to_call`` is not one of its calls that can change the workspace.
        """
        return await asyncio.to_thread(self._plan, request)

    async def apply(self, plan: UndoPlan, *, force: bool = False) -> UndoResult:
        """Do what ``plan`` says, planned again now (the workspace may have changed since it was shown).

        Raises:
            UndoConflict: files changed since the run's last checkpoint and not ``force``:
                nothing was changed.
            NothingToUndo: as ``plan``.
        """
        return await asyncio.to_thread(self._apply, plan, force)

    def _plan(self, request: UndoRequest) -> UndoPlan:
        run_id = request.run_id or self._last_run()
        checkpoints = self._store.checkpoints(run_id)
        if not checkpoints:
            raise NothingToUndo(f"run {run_id} has no checkpoints in this workspace: it changed nothing here")
        undone = _from_call(checkpoints, request.to_call, run_id)
        targets, recorded = _targets(undone), _last_states(checkpoints)
        now = self._store.current(sorted(targets))
        steps = [self._step(path, now[path], targets[path]) for path in sorted(targets)]
        conflicts = tuple(p for p in sorted(targets) if not _same(now[p], recorded[p]))
        return UndoPlan(
            run_id=run_id,
            to_call=request.to_call,
            steps=tuple(step for step in steps if step is not None),
            conflicts=conflicts,
        )

    def _last_run(self) -> str:
        runs = self._store.runs()
        if not runs:
            raise NothingToUndo("no run has checkpoints in this workspace: there is nothing to undo")
        return runs[-1]

    def _step(self, path: str, now: FileState | None, then: FileState | None) -> UndoStep | None:
        if _same(now, then):
            return None
        action: UndoAction = "remove" if then is None else ("recreate" if now is None else "restore")
        shown = then if then is not None else now
        assert shown is not None
        restorable = then is None or not then.oversize
        return UndoStep(
            path=path,
            action=action,
            kind=shown.kind,
            mode_now=None if now is None else now.mode,
            mode_then=None if then is None else then.mode,
            diff=self._diff(path, now, then) if restorable else None,
            restorable=restorable,
        )

    def _diff(self, path: str, now: FileState | None, then: FileState | None) -> str | None:
        if not _textual(now) or not _textual(then):
            return None
        old = self._store.content(path, None) if now is not None else b""
        new = self._store.content(path, then) if then is not None else b""
        return text_diff(path, old, new)

    def _apply(self, plan: UndoPlan, force: bool) -> UndoResult:
        fresh = self._plan(UndoRequest(run_id=plan.run_id, to_call=plan.to_call))
        if fresh.conflicts and not force:
            raise UndoConflict(fresh.run_id, fresh.conflicts)
        undo_run_id = self._new_run_id()
        task = f"undo {fresh.run_id}" + (f" --to {fresh.to_call}" if fresh.to_call else "")
        self._observer.on_event(RunStarted(run_id=undo_run_id, model=UNDO_MODEL, task=task))
        stop: RunStopReason = RunStopReason.ERROR
        try:
            self._store.baseline(undo_run_id)
            checkpoints = self._store.checkpoints(fresh.run_id)
            targets = _targets(_from_call(checkpoints, fresh.to_call, fresh.run_id))
            self._store.restore({s.path: targets[s.path] for s in fresh.steps if s.restorable})
            checkpoint = self._store.record(undo_run_id, [])
            if checkpoint.changes:
                self._observer.on_event(checkpoint_event(checkpoint))
            stop = RunStopReason.END_TURN
        finally:
            summary = _summary(fresh) if stop is RunStopReason.END_TURN else "the undo failed"
            self._observer.on_event(RunFinished(stop_reason=stop, turns=0, output=summary, usage=RunUsage()))
        return UndoResult(run_id=fresh.run_id, undo_run_id=undo_run_id, plan=fresh)


def _from_call(checkpoints: Sequence[Checkpoint], to_call: str | None, run_id: str) -> Sequence[Checkpoint]:
    """The checkpoints an undo to the state before ``to_call`` reverses (all: before the run)."""
    if to_call is None:
        return checkpoints
    for index, checkpoint in enumerate(checkpoints):
        if to_call in checkpoint.call_ids:
            return checkpoints[index:]
    raise NothingToUndo(f"run {run_id} has no call {to_call} that could change the workspace")


def _targets(checkpoints: Sequence[Checkpoint]) -> dict[str, FileState | None]:
    """Each path ``checkpoints`` changed → its state before the first of them that changed it."""
    targets: dict[str, FileState | None] = {}
    for checkpoint in checkpoints:
        for change in checkpoint.changes:
            targets.setdefault(change.path, change.before)
    return targets


def _last_states(checkpoints: Sequence[Checkpoint]) -> dict[str, FileState | None]:
    """Each path ``checkpoints`` changed → its state as the last of them left it."""
    return {change.path: change.after for checkpoint in checkpoints for change in checkpoint.changes}


def _same(a: FileState | None, b: FileState | None) -> bool:
    return (a is None and b is None) or (a is not None and a.same_as(b))


def _textual(state: FileState | None) -> bool:
    return state is None or (state.kind == "file" and not state.oversize)


def text_diff(path: str, old: bytes | None, new: bytes | None) -> str | None:
    """A unified diff from ``old`` to ``new`` (at most ``MAX_DIFF_LINES`` lines); None when either is not text."""
    try:
        before = (old or b"").decode()
        after = (new or b"").decode()
    except UnicodeDecodeError:
        return None
    if "\0" in before or "\0" in after:
        return None
    lines = list(
        difflib.unified_diff(
            before.splitlines(keepends=True), after.splitlines(keepends=True), f"a/{path}", f"b/{path}"
        )
    )
    if len(lines) > MAX_DIFF_LINES:
        lines = [*lines[:MAX_DIFF_LINES], f"... {len(lines) - MAX_DIFF_LINES} more lines\n"]
    return "".join(lines)


def _summary(plan: UndoPlan) -> str:
    counts = {action: sum(1 for s in plan.steps if s.action == action and s.restorable) for action in _ACTIONS}
    done = ", ".join(f"{counts[a]} {_ACTIONS[a]}" for a in _ACTIONS if counts[a])
    return f"undid run {plan.run_id}: {done or 'nothing to change'}"


_ACTIONS: dict[UndoAction, str] = {"remove": "removed", "restore": "restored", "recreate": "recreated"}
