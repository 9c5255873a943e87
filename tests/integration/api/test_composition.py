"""``quorum.composition``: ``prepare_run`` and the ``Runtime`` every driver runs on, over the real container."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from quorum.composition.container import build_container
from quorum.composition.options import AppOptions
from quorum.composition.runs import prepare_run
from quorum.composition.runtime import Runtime
from tests.fakes import FakeGateway, FakeTools, RecordingObserver, ScriptedReviewer, ScriptedSession, text


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


@dataclass
class NotedTools(FakeTools):
    """Tools whose source adds a note to the system prompt, and that say when they are closed."""

    closed: list[str] = field(default_factory=list)
    asked: int = 0

    async def prompt_notes(self) -> list[str]:
        self.asked += 1
        return ["server instructions"]

    async def aclose(self) -> None:
        self.closed.append("tools")


@dataclass
class ClosingGateway(FakeGateway):
    closed: list[str] = field(default_factory=list)

    def resolve(self, model_id: str) -> str:
        return {"fast": "fake:m"}.get(model_id, model_id)

    async def aclose(self) -> None:
        self.closed.append("gateway")


class ClosingStore:
    """Records what the run's recorder writes, and says when it is closed."""

    def __init__(self, closed: list[str]) -> None:
        self._closed = closed
        self.headers: list[Any] = []
        self.events: list[Any] = []

    def start_run(self, header: Any) -> None:
        self.headers.append(header)

    def append_events(self, run_id: str, events: Any) -> None:
        self.events.extend(events)

    def close(self) -> None:
        self._closed.append("store")


def _runtime(share_prompt: bool = False) -> tuple[Runtime, list[str], NotedTools]:
    closed: list[str] = []
    tools = NotedTools(closed=closed)
    store = ClosingStore(closed)
    container = build_container(
        AppOptions(no_log=True, overrides={"agent": {"system_prompt": "Be brief."}}),
        env={},
        config_dir=None,
        gateway=ClosingGateway(ScriptedSession([text("done")]), closed=closed),
        tool_executor=tools,
        reviewer=ScriptedReviewer(default=False),
        run_store=store,
    )
    return Runtime(container, share_prompt=share_prompt), closed, tools


async def test_prepare_run_resolves_the_model_adds_the_notes_and_runs_with_the_drivers_observers() -> None:
    runtime, _closed, tools = _runtime()
    observer = RecordingObserver()
    async with runtime:
        prepared = await prepare_run(
            runtime, "t", model="fast", tools="low_risk_only", run_id="r1", parent_run_id="p0", observers=[observer]
        )
        with pytest.raises(dataclasses.FrozenInstanceError):
            prepared.parent_run_id = "x"  # type: ignore[misc]
        result = await runtime.execute(prepared)
    request = prepared.request
    assert (request.model_id, request.run_id, request.params.tools) == ("fake:m", "r1", "low_risk_only")
    assert request.system_prompt == "Be brief.\n\nserver instructions"
    assert tools.asked == 1
    assert result.output == "done" and observer.types()[-1] == "run_finished"
    store = runtime.container.run_store()
    assert [h.parent_run_id for h in store.headers] == ["p0"]  # the recorder, with the run it continues


async def test_a_run_for_temporal_gets_the_configured_prompt_without_asking_the_tools() -> None:
    runtime, _closed, tools = _runtime()
    async with runtime:
        prepared = await prepare_run(runtime, "t", model="fake:m", tool_notes=False)
    assert prepared.request.system_prompt == "Be brief." and tools.asked == 0


async def test_the_runtime_closes_tools_then_clients_then_the_store_once() -> None:
    runtime, closed, _tools = _runtime()
    async with runtime:
        pass
    await runtime.aclose()
    assert closed == ["tools", "gateway", "store"]


async def test_a_shared_prompt_asks_the_tool_sources_once() -> None:
    runtime, _closed, tools = _runtime(share_prompt=True)
    async with runtime:
        first = await runtime.system_prompt()
        second = await runtime.system_prompt()
    assert first == second == "Be brief.\n\nserver instructions"
    assert tools.asked == 1
