"""Runs driven through the real RunAgent, with fakes for the model and tools, recorded to real SQLite."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from quorum.application.execution import ExecutionParams, RunRequest, RunResult
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.messages import Message
from quorum.infrastructure.storage.recorder import RunRecorder
from quorum.infrastructure.storage.sqlite_store import SqliteRunStore
from tests.fakes import (
    FakeGateway,
    FakeTools,
    JsonSchema,
    RecordingObserver,
    ScriptedReviewer,
    ScriptedSession,
)


@dataclass
class Tee:
    """Passes every event to each observer (the recorder and a recording one)."""

    observers: list[Any]

    def on_event(self, event: Any) -> None:
        for observer in self.observers:
            observer.on_event(event)


@dataclass
class RecordedRun:
    store: SqliteRunStore
    session: ScriptedSession = field(default_factory=lambda: ScriptedSession([]))
    tools: FakeTools = field(default_factory=FakeTools)
    reviewer: Any = None
    seen: RecordingObserver = field(default_factory=RecordingObserver)
    recorder: RunRecorder | None = None

    async def run(
        self,
        task: str = "do it",
        *,
        run_id: str = "run-1",
        history: tuple[Message, ...] = (),
        parent_run_id: str | None = None,
        **params: Any,
    ) -> RunResult:
        self.recorder = RunRecorder(
            self.store, workspace="/tmp/ws", config_digest="sha256:abc", parent_run_id=parent_run_id
        )
        agent = RunAgent(
            gateway=FakeGateway(self.session),
            executor=self.tools,
            schema=JsonSchema(),
            reviewer=self.reviewer or ScriptedReviewer(tools=self.tools),
            observer=Tee([self.recorder, self.seen]),
        )
        request = RunRequest(
            task=task, model_id="fake:model", params=ExecutionParams(**params), history=history, run_id=run_id
        )
        return await agent.execute(request)


@pytest.fixture
def db_path(tmp_path: Path) -> Path:
    return tmp_path / "log" / "runs.db"


@pytest.fixture
def store(db_path: Path) -> Iterator[SqliteRunStore]:
    store = SqliteRunStore(db_path)
    yield store
    store.close()


@pytest.fixture
def recorded(store: SqliteRunStore) -> RecordedRun:
    return RecordedRun(store)
