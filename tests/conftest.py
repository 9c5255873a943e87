"""Fixtures every test tree shares: local wire servers speaking the providers' protocols."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from pathlib import Path

import pytest

from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server


@pytest.fixture(autouse=True)
def trusted_workspaces(monkeypatch: pytest.MonkeyPatch) -> None:
    """Tests write their own workspace's quorum.toml: trust it (tests/e2e/test_workspace_trust.py does not)."""
    monkeypatch.setenv("QUORUM_TRUST_WORKSPACE", "1")


@pytest.fixture(autouse=True)
def private_data_dir(monkeypatch: pytest.MonkeyPatch, tmp_path_factory: pytest.TempPathFactory) -> None:
    """Quorum's data dir (checkpoints, the server token) under the test run's temporary dir, never the user's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path_factory.getbasetemp() / "xdg-data"))


@pytest.fixture(autouse=True)
def checkpoints_never_record_this_checkout(monkeypatch: pytest.MonkeyPatch) -> None:
    """A test whose workspace is the current directory (this checkout) records nothing.

    Its first approved call would otherwise copy the whole checkout, ``.venv`` included, into the
    checkpoint store. Tests of checkpoints use their own temporary workspaces.
    """
    from datetime import UTC, datetime

    from quorum.domain.checkpoints import Checkpoint
    from quorum.infrastructure.checkpoints.store import FileCheckpointStore

    checkout = Path(__file__).resolve().parents[1]
    baseline, record = FileCheckpointStore.baseline, FileCheckpointStore.record

    def inside(store: FileCheckpointStore) -> bool:
        return store.workspace == checkout or checkout in store.workspace.parents

    def guarded_baseline(self: FileCheckpointStore, run_id: str) -> None:
        if not inside(self):
            baseline(self, run_id)

    def guarded_record(self: FileCheckpointStore, run_id: str, call_ids: Sequence[str]) -> Checkpoint:
        if not inside(self):
            return record(self, run_id, call_ids)
        return Checkpoint(
            checkpoint_id="-", run_id=run_id, seq=0, call_ids=tuple(call_ids), changes=(), at=datetime.now(UTC)
        )

    monkeypatch.setattr(FileCheckpointStore, "baseline", guarded_baseline)
    monkeypatch.setattr(FileCheckpointStore, "record", guarded_record)


@pytest.fixture(autouse=True, scope="session")
def workspaces_outside_repositories(tmp_path_factory: pytest.TempPathFactory) -> None:
    """Temporary workspaces must not sit in a repository: its quorum.toml would be read as theirs.

    A workspace's configuration is read up to the nearest ``.git`` above it (decision 200); with
    ``--basetemp`` inside a checkout, this repository's own quorum.toml would configure every test.
    """
    from quorum.infrastructure.config.workspace import find_workspace

    probe = tmp_path_factory.mktemp("probe")
    if found := find_workspace(probe).files:
        pytest.fail(f"{probe} is inside a repository whose configuration files it would read: {found}")


@pytest.fixture
def openai_wire() -> Iterator[ScriptedHttpServer]:
    """A started local OpenAI Chat Completions server (``base_url`` is ``url + "/v1"``)."""
    server = openai_server()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def anthropic_wire() -> Iterator[ScriptedHttpServer]:
    """A started local Anthropic Messages server (``base_url`` is ``url``)."""
    server = anthropic_server()
    try:
        yield server
    finally:
        server.stop()
