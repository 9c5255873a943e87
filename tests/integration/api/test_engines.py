"""The engine port over the real container: chosen in one place, a recorded run by its own engine.

The local engine runs the scripted model, the real tools, review gate and SQLite run log; the
Temporal engine is only chosen here (its runs are tested with a dev server in
``tests/integration/temporal``).
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from quorum.composition.container import build_container
from quorum.composition.engines import LocalEngine, engine_class, engine_for, engine_of_run
from quorum.composition.options import AppOptions
from quorum.composition.orders import DecisionOrder, RunOrder
from quorum.composition.runtime import Runtime
from quorum.infrastructure.review.human import HumanAnswer, HumanRequest

WRITE = [
    {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x\n"}, "id": "w1"}]},
    {"text": "done"},
]


class Waiting:
    """A ``HumanPrompt`` that never answers: the run waits at its human step until cancelled."""

    async def ask(self, request: HumanRequest) -> HumanAnswer:
        await asyncio.Event().wait()
        raise AssertionError("never answered")


@pytest.fixture
def scripted(tmp_path: Path) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"conversation": "continue", "turns": WRITE}))
    return f"scripted:{path}"


def runtime_for(tmp_path: Path, **overrides: Any) -> Runtime:
    (tmp_path / "ws").mkdir(exist_ok=True)
    chosen = {"tools": {"workspace": str(tmp_path / "ws")}, "storage": {"path": str(tmp_path / "runs.db")}}
    options = AppOptions(overrides={**chosen, **overrides}, interactive=False)
    return Runtime(build_container(options, env={}, config_dir=None))


def test_the_configured_kind_chooses_the_engine_and_its_capabilities(tmp_path: Path) -> None:
    pytest.importorskip("temporalio")
    local = engine_for(runtime_for(tmp_path))
    temporal = engine_for(runtime_for(tmp_path, engine={"kind": "temporal"}))
    assert isinstance(local, LocalEngine) and local.in_process and not local.detachable
    assert local.supports_plan_mode and not temporal.supports_plan_mode
    assert not temporal.in_process and temporal.detachable
    assert engine_class(runtime_for(tmp_path, engine={"kind": "temporal"}).container.settings()) is type(temporal)


async def test_start_returns_once_recorded_and_the_runs_own_engine_continues_it(tmp_path: Path, scripted: str) -> None:
    runtime = runtime_for(tmp_path, review={"hil_mode": "defer"})
    async with runtime:
        engine = engine_for(runtime)
        run_id = await engine.start(RunOrder("write", model=scripted))
        assert runtime.store is not None and runtime.store.get_run(run_id) is not None
        while runtime.store.get_run(run_id).status != "awaiting_approval":
            await asyncio.sleep(0.02)
        continuing = await engine_of_run(runtime, run_id)
        result = await continuing.decide(DecisionOrder(run_id=run_id, approved=True, by="me"))
    assert isinstance(continuing, LocalEngine) and result.stop_reason == "end_turn"
    assert (tmp_path / "ws" / "out.txt").read_text() == "x\n"


async def test_cancel_ends_a_started_run_cancelled(tmp_path: Path, scripted: str) -> None:
    runtime = runtime_for(tmp_path, review={"hil_mode": "interactive"})
    async with runtime:
        engine = engine_for(runtime)
        run_id = await engine.start(RunOrder("write", model=scripted, human=Waiting()))
        assert await engine.cancel(run_id)
        assert runtime.store is not None
        while runtime.store.get_run(run_id).status not in {"cancelled", "error", "end_turn"}:
            await asyncio.sleep(0.02)
        assert runtime.store.get_run(run_id).status == "cancelled"
        assert not await engine.cancel(run_id)
    assert not (tmp_path / "ws" / "out.txt").exists()


def test_runs_with_hooks_are_refused_on_temporal_rather_than_run_without_them(tmp_path: Path) -> None:
    from quorum.domain.errors import ConfigurationError

    hooks = {"pre_tool_use": [{"command": "exit 2"}]}
    with pytest.raises(ConfigurationError, match="hooks do not run on the Temporal engine"):
        engine_for(runtime_for(tmp_path, engine={"kind": "temporal"}, hooks=hooks))
    assert isinstance(engine_for(runtime_for(tmp_path, hooks=hooks)), LocalEngine)
