"""Runs driven through the real RunAgent, with fakes for the model and tools, recorded to a real run log.

Tests of the port take ``store`` (or ``backend`` to open more stores on the same log): they run
against both backends, SQLite in a temporary file and PostgreSQL in a fresh database of a real
server the session starts (``tests/support/postgres.py``). Under CI a missing PostgreSQL fails them.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator
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
from tests.support.postgres import PostgresServer, start_server


@dataclass
class Tee:
    """Passes every event to each observer (the recorder and a recording one)."""

    observers: list[Any]

    def on_event(self, event: Any) -> None:
        for observer in self.observers:
            observer.on_event(event)


@dataclass
class RecordedRun:
    store: Any
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


@dataclass
class Backend:
    """One run log under test: ``open()`` gives a new store on it (another connection, as another process)."""

    name: str
    open: Callable[[], Any]
    where: str = ""  # the SQLite file or the PostgreSQL URL, for a child process to open


@pytest.fixture(scope="session")
def postgres_server() -> Iterator[PostgresServer]:
    """A real PostgreSQL server for the session; missing binaries fail under CI, skip (with why) elsewhere."""
    try:
        server = start_server()
    except FileNotFoundError as missing:
        if os.environ.get("CI", "").lower() in ("1", "true", "yes"):
            pytest.fail(f"CI must test the PostgreSQL store: {missing}")
        pytest.skip(f"no PostgreSQL server here: {missing}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(params=["sqlite", "postgres"])
def backend(request: pytest.FixtureRequest, db_path: Path) -> Iterator[Backend]:
    opened: list[Any] = []

    def opener(factory: Callable[[], Any]) -> Callable[[], Any]:
        def open_store() -> Any:
            opened.append(factory())
            return opened[-1]

        return open_store

    if request.param == "sqlite":
        yield Backend("sqlite", opener(lambda: SqliteRunStore(db_path)), str(db_path))
    else:
        from quorum.infrastructure.storage.postgres_store import PostgresRunStore

        server: PostgresServer = request.getfixturevalue("postgres_server")
        url = server.new_database()
        yield Backend("postgres", opener(lambda: PostgresRunStore(url)), url)
    for each in opened:
        each.close()


@pytest.fixture
def store(backend: Backend) -> Any:
    return backend.open()


@pytest.fixture
def recorded(store: Any) -> RecordedRun:
    return RecordedRun(store)
