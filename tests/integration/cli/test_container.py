"""The real container, with providers overridden by fakes."""

from __future__ import annotations

from pathlib import Path

import pytest

from quorum.application.execution import RunRequest
from quorum.composition.container import build_container
from quorum.composition.options import AppOptions
from quorum.domain.tools import RiskLevel
from tests.fakes import (
    FakeGateway,
    FakeTools,
    RecordingObserver,
    ScriptedReviewer,
    ScriptedSession,
    calls,
    text,
)


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)


async def echo(args: dict) -> str:
    return "ok"


async def test_container_runs_the_use_case_with_fakes() -> None:
    session = ScriptedSession([calls(("read", {}), ("write", {})), text("done")])
    tools = FakeTools()
    tools.add("read", echo)
    tools.add("write", echo, risk=RiskLevel.HIGH)
    reviewer = ScriptedReviewer(default=False)
    observer = RecordingObserver()
    container = build_container(
        AppOptions(no_log=True),
        env={},
        config_dir=None,
        gateway=FakeGateway(session),
        tool_executor=tools,
        reviewer=reviewer,
        observer=observer,
    )
    result = await container.run_agent().execute(RunRequest(task="t", model_id="fake:m"))
    assert result.stop_reason == "end_turn"
    assert tools.executed == ["c1"] and reviewer.reviewed == ["c2"]
    assert observer.types()[0] == "run_started" and observer.types()[-1] == "run_finished"


def test_settings_come_from_layers_and_overrides(tmp_path: Path) -> None:
    (tmp_path / "quorum.toml").write_text("[agent]\nmax_tool_turns = 4\n")
    container = build_container(
        AppOptions(overrides={"agent": {"timeout_seconds": 7}}), env={"QUORUM_MODEL": "test"}, config_dir=None
    )
    settings = container.settings()
    assert (settings.model, settings.agent.max_tool_turns, settings.agent.timeout_seconds) == ("test", 4, 7)


def test_no_log_means_no_store() -> None:
    container = build_container(AppOptions(no_log=True), env={}, config_dir=None)
    assert container.run_store() is None


def test_gateway_opens_offline_sessions() -> None:
    container = build_container(AppOptions(), env={}, config_dir=None)
    session = container.gateway().session("test")
    assert session.model == "test"
