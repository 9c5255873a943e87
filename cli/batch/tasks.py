"""The tasks of ``quorum batch``: reading TASKS.jsonl, naming each task's runs, and running them bounded.

A line is ``{"task": …, "id"?: …, "model"?: …, "workspace"?: …}``. A task's id is its ``id``, else
a stable hash of the line's content, so re-running an unchanged file finds the same ids. Its runs
are named ``KEY-N`` (``KEY``: a hash of the file's absolute path and the id; ``N``: the attempt),
which is how a re-run finds what already happened in the run log, on any engine (a Temporal
workflow id is the run id).

``run_tasks`` is the engine-agnostic part: it starts every task through a ``TaskEngine`` with at
most ``concurrency`` in flight and reports each start and outcome as it happens.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Literal, Protocol

from quorum.application.ports.run_store import RunStore
from quorum.domain.errors import UsageError

Category = Literal["done", "failed", "stopped", "waiting"]
"""How a task ended, as the progress display and the exit code count it."""

STOPPED_EARLY = frozenset(
    {"max_turns", "timeout", "max_tokens", "max_cost", "rejected", "no_plan", "loop_detected", "invalid_output"}
)


def category_of(status: str) -> Category:
    """``end_turn`` is done, ``awaiting_approval`` waiting, a limit stopped early, anything else failed."""
    if status == "end_turn":
        return "done"
    if status == "awaiting_approval":
        return "waiting"
    if status in STOPPED_EARLY:
        return "stopped"
    return "failed"  # error, cancelled, interrupted, or the run could not start


@dataclass(frozen=True)
class BatchTask:
    """One line of the file: its task, id, optional model and workspace, and its run-name key."""

    line: int
    id: str
    task: str
    key: str
    model: str | None = None
    workspace: Path | None = None

    def run_id(self, attempt: int) -> str:
        return f"{self.key}-{attempt}"


@dataclass(frozen=True)
class TaskOutcome:
    """How one task ended (or, when ``skipped``, had already ended in an earlier batch)."""

    task: BatchTask
    run_id: str | None
    status: str
    output: str = ""
    detail: str | None = None
    turns: int = 0
    skipped: bool = False

    @property
    def category(self) -> Category:
        return category_of(self.status)

    def as_json(self) -> dict[str, Any]:
        return {
            "type": "task",
            "id": self.task.id,
            "line": self.task.line,
            "run_id": self.run_id,
            "status": self.status,
            "result": self.category,
            "skipped": self.skipped,
            "turns": self.turns,
            "output": self.output,
            "detail": self.detail,
        }


RESUMED_SKIP = frozenset({"end_turn", "awaiting_approval"})
"""Statuses a re-run leaves alone: finished, or waiting for ``quorum approve`` to continue it."""


def plan(tasks: Sequence[BatchTask], store: RunStore) -> tuple[list[TaskOutcome], list[tuple[BatchTask, str]]]:
    """Split ``tasks`` into those already finished (their recorded outcome) and those to run (with a run id).

    A task is finished when its latest run ended ``end_turn`` or awaits approval; any other task
    runs again as its next attempt (a new run id, so the failed attempt stays in the log).
    """
    finished: list[TaskOutcome] = []
    to_run: list[tuple[BatchTask, str]] = []
    for task in tasks:
        previous = store.match_run_ids(f"{task.key}-", limit=1000)
        attempts = [int(tail) for run_id in previous if (tail := run_id.rpartition("-")[2]).isdigit()]
        latest = store.get_run(task.run_id(max(attempts))) if attempts else None
        if latest is not None and latest.status in RESUMED_SKIP:
            finished.append(
                TaskOutcome(task=task, run_id=latest.run_id, status=latest.status, output=latest.output,
                            detail=latest.detail, turns=latest.turns, skipped=True)
            )  # fmt: skip
        else:
            to_run.append((task, task.run_id(max(attempts, default=0) + 1)))
    return finished, to_run


class TaskEngine(Protocol):
    """Runs one task as one run on an engine (local: in this process; Temporal: a workflow)."""

    async def run(self, task: BatchTask, run_id: str) -> TaskOutcome:
        """Run ``task`` as the run ``run_id`` to its stop; an outcome, never an exception for the run's failures."""
        ...


def read_tasks(path: Path) -> list[BatchTask]:
    """The tasks of a JSONL file (blank lines ignored).

    Raises:
        UsageError: unreadable file, a line that is not such an object, or an id given twice.
    """
    try:
        lines = path.read_text(encoding="utf-8").splitlines()
    except (OSError, UnicodeDecodeError) as error:
        raise UsageError(f"cannot read {path}: {error}") from None
    scope = str(path.resolve())
    tasks: list[BatchTask] = []
    seen: dict[str, int] = {}
    for number, text in enumerate(lines, 1):
        if not text.strip():
            continue
        tasks.append(_task(path, number, text, scope))
        if tasks[-1].id in seen:
            raise UsageError(f"{path}:{number}: id {tasks[-1].id!r} is also the id of line {seen[tasks[-1].id]}")
        seen[tasks[-1].id] = number
    if not tasks:
        raise UsageError(f'{path} holds no tasks (one JSON object per line, e.g. {{"task": "…"}})')
    return tasks


def _task(path: Path, number: int, text: str, scope: str) -> BatchTask:
    where = f"{path}:{number}"
    try:
        data = json.loads(text)
    except json.JSONDecodeError as error:
        raise UsageError(f"{where}: not JSON ({error.msg})") from None
    if not isinstance(data, dict):
        raise UsageError(f'{where}: expected an object like {{"task": "…"}}')
    unknown = sorted(set(data) - {"task", "id", "model", "workspace"})
    if unknown:
        raise UsageError(f"{where}: unknown key(s) {', '.join(unknown)} (task, id, model, workspace)")
    task = data.get("task")
    if not isinstance(task, str) or not task.strip():
        raise UsageError(f'{where}: "task" must be a non-empty string')
    for name in ("model", "workspace"):
        if name in data and not (isinstance(data[name], str) and data[name]):
            raise UsageError(f"{where}: {name!r} must be a non-empty string")
    raw_id = data.get("id")
    if raw_id is None:
        task_id = hashlib.sha256(json.dumps(data, sort_keys=True).encode()).hexdigest()[:12]
    elif isinstance(raw_id, str | int) and not isinstance(raw_id, bool) and str(raw_id):
        task_id = str(raw_id)
    else:
        raise UsageError(f'{where}: "id" must be a non-empty string or a number')
    workspace = None
    if "workspace" in data:
        workspace = (path.parent / Path(data["workspace"]).expanduser()).resolve()
        if not workspace.is_dir():
            raise UsageError(f"{where}: workspace {workspace} is not a directory")
    key = hashlib.sha256(f"{scope}\0{task_id}".encode()).hexdigest()[:12]
    return BatchTask(line=number, id=task_id, task=task, key=key, model=data.get("model"), workspace=workspace)


async def run_tasks(
    tasks: Sequence[tuple[BatchTask, str]],
    engine: TaskEngine,
    concurrency: int,
    *,
    on_start: Callable[[BatchTask, str], None] = lambda task, run_id: None,
    on_outcome: Callable[[TaskOutcome], None] = lambda outcome: None,
) -> list[TaskOutcome]:
    """Run each (task, run id) on ``engine``, at most ``concurrency`` at once, in file order.

    A task whose engine raises (a usage or configuration error of that task: a bad model id, a
    missing key) ends ``error`` with the message and no run; the others go on. Cancelling
    cancels them all.
    """
    slots = asyncio.Semaphore(concurrency)

    async def one(task: BatchTask, run_id: str) -> TaskOutcome:
        async with slots:
            on_start(task, run_id)
            try:
                outcome = await engine.run(task, run_id)
            except asyncio.CancelledError:
                raise
            except Exception as error:  # the task could not start (runs report their own failures)
                outcome = TaskOutcome(task=task, run_id=None, status="error", detail=_message(error))
            on_outcome(outcome)
            return outcome

    return list(await asyncio.gather(*(one(task, run_id) for task, run_id in tasks)))


def _message(error: BaseException) -> str:
    return str(error) or type(error).__name__
