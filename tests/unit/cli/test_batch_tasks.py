"""``quorum batch``'s engine-agnostic part: reading TASKS.jsonl, and running tasks with bounded concurrency.

The bound is proven without timing: every run blocks until the test releases it, so an unbounded
runner would have all tasks inside at once; the test releases one run at a time and waits for the
next start before releasing another.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

import pytest

from quorum.cli.batch.tasks import BatchTask, TaskOutcome, category_of, read_tasks, run_tasks
from quorum.cli.commands.batch import exit_code_of
from quorum.domain.errors import UsageError


class GatedEngine:
    """Each run waits for its own release; counts runs inside at once."""

    def __init__(self, ids: list[str]) -> None:
        self.release = {i: asyncio.Event() for i in ids}
        self.started = {i: asyncio.Event() for i in ids}
        self.order: list[str] = []
        self.inside = 0
        self.most_inside = 0

    async def run(self, task: BatchTask, run_id: str) -> TaskOutcome:
        self.inside += 1
        self.most_inside = max(self.most_inside, self.inside)
        self.order.append(task.id)
        self.started[task.id].set()
        try:
            await self.release[task.id].wait()
            if task.task == "explode":
                raise UsageError("unknown provider 'nope'")
            return TaskOutcome(task=task, run_id=run_id, status="end_turn", output=f"did {task.task}")
        finally:
            self.inside -= 1


def tasks_of(tmp_path: Path, count: int) -> list[BatchTask]:
    path = tmp_path / "tasks.jsonl"
    path.write_text("".join(json.dumps({"task": f"t{i}", "id": f"id{i}"}) + "\n" for i in range(count)))
    return read_tasks(path)


async def test_at_most_concurrency_runs_are_inside_and_they_start_in_file_order(tmp_path: Path) -> None:
    tasks = tasks_of(tmp_path, 6)
    engine = GatedEngine([t.id for t in tasks])
    runner = asyncio.ensure_future(run_tasks([(t, t.run_id(1)) for t in tasks], engine, 2))
    await engine.started["id0"].wait()
    await engine.started["id1"].wait()
    for index in range(4):  # release the oldest run; only then may the next task start
        assert engine.inside == 2 and not engine.started[f"id{index + 2}"].is_set()
        engine.release[f"id{index}"].set()
        await engine.started[f"id{index + 2}"].wait()
    engine.release["id4"].set()
    engine.release["id5"].set()
    outcomes = await runner
    assert engine.most_inside == 2
    assert engine.order == [f"id{i}" for i in range(6)]
    assert [o.status for o in outcomes] == ["end_turn"] * 6


async def test_a_task_that_cannot_start_fails_alone(tmp_path: Path) -> None:
    path = tmp_path / "tasks.jsonl"
    path.write_text('{"task": "explode", "id": "x"}\n{"task": "fine", "id": "y"}\n')
    tasks = read_tasks(path)
    engine = GatedEngine(["x", "y"])
    for event in engine.release.values():
        event.set()
    ended: list[str] = []
    outcomes = await run_tasks(
        [(t, t.run_id(1)) for t in tasks], engine, 1, on_outcome=lambda o: ended.append(o.task.id)
    )
    assert [(o.status, o.run_id, o.detail) for o in outcomes] == [
        ("error", None, "unknown provider 'nope'"),
        ("end_turn", tasks[1].run_id(1), None),
    ]
    assert ended == ["x", "y"]


def test_ids_default_to_a_stable_hash_and_run_names_depend_on_file_and_id(tmp_path: Path) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text('{"task": "one"}\n\n{"model": "m:x", "task": "two", "id": 7}\n')
    first, second = read_tasks(path)
    assert (first.line, second.line, second.id, second.model) == (1, 3, "7", "m:x")
    path.write_text('\n{"task": "one"}\n')
    assert read_tasks(path)[0].id == first.id and read_tasks(path)[0].key == first.key
    other = tmp_path / "b.jsonl"
    other.write_text('{"task": "one"}\n')
    assert read_tasks(other)[0].id == first.id and read_tasks(other)[0].key != first.key
    assert first.run_id(2) == f"{first.key}-2"


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("not json\n", "a.jsonl:1: not JSON"),
        ("[1]\n", "expected an object"),
        ('{"task": ""}\n', '"task" must be a non-empty string'),
        ('{"task": "x", "colour": 1}\n', "unknown key(s) colour"),
        ('{"task": "x", "id": true}\n', '"id" must be'),
        ('{"task": "x", "id": "a"}\n{"task": "y", "id": "a"}\n', "a.jsonl:2: id 'a' is also the id of line 1"),
        ('{"task": "x", "workspace": "nowhere"}\n', "is not a directory"),
        ("\n\n", "holds no tasks"),
    ],
)
def test_bad_files_are_usage_errors_naming_the_line(tmp_path: Path, text: str, message: str) -> None:
    path = tmp_path / "a.jsonl"
    path.write_text(text)
    with pytest.raises(UsageError) as raised:
        read_tasks(path)
    assert message in str(raised.value)


def test_categories_and_the_exit_code() -> None:
    assert [category_of(s) for s in ("end_turn", "awaiting_approval", "max_turns", "error", "interrupted")] == [
        "done",
        "waiting",
        "stopped",
        "failed",
        "failed",
    ]
    assert exit_code_of({"done"}) == 0 and exit_code_of(set()) == 0
    assert exit_code_of({"done", "waiting"}) == 4
    assert exit_code_of({"waiting", "stopped"}) == 3
    assert exit_code_of({"waiting", "stopped", "failed"}) == 1
