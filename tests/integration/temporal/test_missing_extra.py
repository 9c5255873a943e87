"""Choosing the Temporal engine without the extra installed is a configuration error, not a traceback."""

from __future__ import annotations

import importlib.abc
import json
import sys
from pathlib import Path

import pytest
from click.testing import CliRunner

from quorum.cli.main import cli
from tests.e2e.conftest import isolated_env


class _NoTemporal(importlib.abc.MetaPathFinder):
    """Makes ``temporalio`` unimportable, as when the extra is not installed."""

    def find_spec(self, name: str, path: object, target: object = None) -> None:
        if name == "temporalio" or name.startswith("temporalio."):
            raise ModuleNotFoundError(f"No module named {name!r}", name=name)


@pytest.fixture
def no_temporal(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Path:
    for name in [m for m in sys.modules if m == "temporalio" or m.startswith("temporalio.")]:
        monkeypatch.delitem(sys.modules, name)
    for name in [m for m in sys.modules if m.startswith("quorum.infrastructure.engines.temporal")]:
        monkeypatch.delitem(sys.modules, name)
    monkeypatch.setattr(sys, "meta_path", [_NoTemporal(), *sys.meta_path])
    for key, value in isolated_env(tmp_path).items():
        monkeypatch.setenv(key, value)
    monkeypatch.chdir(tmp_path)
    (tmp_path / "s.json").write_text(json.dumps({"turns": [{"text": "hi"}]}))
    return tmp_path


@pytest.mark.parametrize(
    "args",
    [
        ["run", "--engine", "temporal", "--model", "scripted:s.json", "hello"],
        ["worker"],
    ],
)
def test_the_temporal_engine_without_the_extra_names_it(no_temporal: Path, args: list[str]) -> None:
    result = CliRunner().invoke(cli, args)
    assert result.exit_code == 2, result.output
    assert "configuration error: engine.kind" in result.output
    assert 'pip install "quorum-agent[temporal]"' in result.output
    assert "Traceback" not in result.output
    assert "temporalio" not in sys.modules


def test_the_config_key_chooses_it_too(no_temporal: Path) -> None:
    (no_temporal / "quorum.toml").write_text('[engine]\nkind = "temporal"\n')
    result = CliRunner().invoke(cli, ["run", "--model", "scripted:s.json", "hello"])
    assert result.exit_code == 2 and "quorum-agent[temporal]" in result.output
