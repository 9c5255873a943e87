"""Telemetry off (the default) costs nothing: OpenTelemetry is never imported, the run's parts are the plain ones."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from quorum.application.use_cases.run_agent import RunAgent
from quorum.composition.container import build_container
from quorum.composition.options import AppOptions
from quorum.domain.errors import ConfigurationError

ROOT = Path(__file__).resolve().parents[3]


def test_a_whole_run_with_telemetry_off_imports_nothing_of_opentelemetry(tmp_path: Path) -> None:
    code = (
        "import asyncio, sys\n"
        "from quorum.application.execution import RunRequest\n"
        "from quorum.composition.container import build_container\n"
        "from quorum.composition.options import AppOptions\n"
        "from tests.fakes import FakeGateway, FakeTools, ScriptedSession, calls, text\n"
        "async def ok(args): return 'ok'\n"
        "tools = FakeTools(); tools.add('read', ok)\n"
        "gateway = FakeGateway(ScriptedSession([calls(('read', {})), text('done')]))\n"
        "container = build_container(AppOptions(no_log=True), env={}, config_dir=None, gateway=gateway,"
        " tool_executor=tools)\n"
        "result = asyncio.run(container.run_agent().execute(RunRequest(task='t', model_id='fake:m')))\n"
        "assert result.stop_reason == 'end_turn' and tools.executed == ['c1'], result\n"
        "print('LOADED', sorted({m.split('.')[0] for m in sys.modules if m.startswith('opentelemetry')}))\n"
    )
    out = subprocess.run(
        [sys.executable, "-c", code],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)},
    )
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip().splitlines()[-1] == "LOADED []"


def test_off_the_run_agent_is_the_plain_use_case(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    container = build_container(AppOptions(no_log=True), env={}, config_dir=None)
    assert container.telemetry() is None
    assert container.run_gateway() is container.gateway()
    assert type(container.run_agent()) is RunAgent


def test_otel_sdk_disabled_turns_it_off_even_when_enabled(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quorum.toml").write_text("[telemetry]\nenabled = true\n")
    container = build_container(AppOptions(no_log=True), env={"OTEL_SDK_DISABLED": "true"}, config_dir=None)
    assert container.telemetry() is None


def test_an_unsupported_protocol_is_a_configuration_error_naming_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "quorum.toml").write_text("[telemetry]\nenabled = true\n")
    env = {"OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"}
    container = build_container(AppOptions(no_log=True), env=env, config_dir=None)
    with pytest.raises(ConfigurationError, match="'grpc' is not supported.*http/protobuf"):
        container.telemetry()
