"""The example third-party plugin, really pip-installed: discovered, listed, usable, blockable."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import REPO, Cli


@pytest.fixture(scope="module")
def plugin_site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    target = tmp_path_factory.mktemp("site")
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            "--no-build-isolation",
            "--target",
            str(target),
            str(REPO / "examples" / "quorum-plugin-echo"),
        ],
        check=True,
        capture_output=True,
        text=True,
    )
    assert any(p.name.startswith("quorum_plugin_echo-") for p in target.iterdir())
    return target


@pytest.fixture
def pcli(cli: Cli, plugin_site: Path) -> Cli:
    cli.env["PYTHONPATH"] = str(plugin_site)
    return cli


def test_plugin_is_discovered_and_listed(pcli: Cli) -> None:
    result = pcli("plugins", "list", "--json")
    assert result.code == 0, result.stderr
    rows = {row["name"]: row for row in map(json.loads, result.stdout.splitlines())}
    echo = rows["echo"]
    assert (echo["builtin"], echo["blocked"], echo["distribution"], echo["version"]) == (
        False,
        False,
        "quorum-plugin-echo",
        "0.1.0",
    )
    assert {(r["kind"], r["name"]) for r in echo["registered"]} == {("provider", "echo"), ("tool", "echo")}


def test_plugin_tool_is_listed(pcli: Cli) -> None:
    result = pcli("tools", "list", "--json")
    assert result.code == 0, result.stderr
    rows = {row["name"]: row for row in map(json.loads, result.stdout.splitlines())}
    assert rows["echo"]["risk"] == "low" and rows["echo"]["source"] == "echo"


def test_plugin_provider_and_tool_are_usable(pcli: Cli) -> None:
    result = pcli("run", "--model", "echo", "--json", "ping")
    assert result.code == 0, result.stderr
    events = result.events()
    assert [e["name"] for e in events if e["type"] == "tool_call"] == ["echo"]
    assert events[-1]["output"] == "echo said: ping"


def test_blocking_the_plugin_in_config(pcli: Cli) -> None:
    pcli.write("quorum.toml", '[plugins]\nblocked = ["echo"]\n')
    listed = {row["name"]: row for row in map(json.loads, pcli("plugins", "list", "--json").stdout.splitlines())}
    assert listed["echo"]["blocked"] is True and listed["echo"]["registered"] == []
    result = pcli("run", "--model", "echo", "x")
    assert result.code == 2 and "unknown provider 'echo'" in result.stderr


def test_disabling_autoload(pcli: Cli) -> None:
    result = pcli("plugins", "list", "--json", QUORUM_DISABLE_PLUGIN_AUTOLOAD="1")
    assert "echo" not in {json.loads(line)["name"] for line in result.stdout.splitlines()}
    tools = pcli("tools", "list", "--json", QUORUM_DISABLE_PLUGIN_AUTOLOAD="1")
    assert "echo" not in {json.loads(line)["name"] for line in tools.stdout.splitlines()}
