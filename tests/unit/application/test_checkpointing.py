"""The workspace is recorded before a run's first approved call and after each one; low-risk calls are not."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any

from quorum.application.checkpointing import CheckpointingExecutor
from quorum.application.execution import RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.checkpoints import Checkpoint, FileChange, FileState
from quorum.domain.tools import RiskLevel
from tests.fakes import FakeGateway, JsonSchema, calls, text
from tests.unit.application.conftest import Harness


@dataclass
class FakeCheckpoints:
    """Records what was asked, in order; each ``record`` reports ``changed`` (then nothing)."""

    asked: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)
    changed: list[str] = field(default_factory=list)
    fail_baseline: bool = False

    def baseline(self, run_id: str) -> None:
        if self.fail_baseline:
            raise OSError("disk full")
        self.asked.append(("baseline", run_id, ()))

    def record(self, run_id: str, call_ids: Sequence[str]) -> Checkpoint:
        self.asked.append(("record", run_id, tuple(call_ids)))
        changes = tuple(FileChange(path=p, before=None, after=FileState(kind="file")) for p in self.changed)
        self.changed = []
        return Checkpoint(
            checkpoint_id=f"k{len(self.asked)}",
            run_id=run_id,
            seq=len(self.asked),
            call_ids=tuple(call_ids),
            changes=changes,
            at=datetime.now(UTC),
        )


async def ok(_: dict[str, Any]) -> str:
    return "ok"


async def run(h: Harness, store: FakeCheckpoints) -> None:
    """Run the harness's script with its tools behind a ``CheckpointingExecutor`` recording ``store``."""
    agent = RunAgent(
        gateway=FakeGateway(h.session),
        executor=CheckpointingExecutor(h.tools, store),
        schema=JsonSchema(),
        reviewer=h.reviewer,
        observer=h.observer,
        new_run_id=lambda: "run-1",
    )
    await agent.execute(RunRequest(task="do it", model_id="fake:model"))


async def test_a_baseline_before_the_first_approved_call_and_a_checkpoint_after_each(h: Harness) -> None:
    store = FakeCheckpoints()
    h.tools.add("read", ok)
    h.tools.add("write", ok, risk=RiskLevel.HIGH)
    h.session.script = [
        calls(("read", {}), ("write", {}), ("write", {"n": 2})),
        calls(("write", {"n": 3})),
        text("done"),
    ]
    store.changed = ["a.txt"]
    await run(h, store)
    assert store.asked == [
        ("baseline", "run-1", ()),
        ("record", "run-1", ("c2",)),
        ("record", "run-1", ("c3",)),
        ("record", "run-1", ("c1_2",)),  # the second response reused c1
    ]
    (event,) = h.observer.of("checkpoint")  # only the checkpoint that changed something is said
    assert event.call_ids == ["c2"] and event.created == ["a.txt"]
    kinds = [e.type for e in h.observer.events if getattr(e, "call_id", None) == "c2" or e.type == "checkpoint"]
    assert kinds.index("checkpoint") < kinds.index("tool_result")


async def test_a_run_of_low_risk_calls_records_nothing(h: Harness) -> None:
    store = FakeCheckpoints()
    h.tools.add("read", ok)
    h.session.script = [calls(("read", {}), ("read", {"x": 1})), text("done")]
    await run(h, store)
    assert store.asked == []


async def test_a_call_whose_starting_point_cannot_be_recorded_does_not_run(h: Harness) -> None:
    store = FakeCheckpoints(fail_baseline=True)
    ran: list[str] = []

    async def write(_: dict[str, Any]) -> str:
        ran.append("write")
        return "written"

    h.tools.add("write", write, risk=RiskLevel.HIGH)
    h.session.script = [calls(("write", {})), text("done")]
    await run(h, store)
    assert ran == []
    (result,) = h.observer.of("tool_result")
    assert result.is_error and "disk full" in result.output
