"""``quorum run`` (the real CLI, a subprocess) with a server that fails to start, and ``mcp check``/``list``.

A failed server is an ``mcp_server`` event in ``--json`` and a line in the human output; with
``required = true`` the run ends with exit 1.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli, isolated_env
from tests.integration.mcp.conftest import PROBE


def _cli(tmp_path: Path, *, required: bool, lazy: bool = False) -> Cli:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    script = tmp_path / "script.json"
    turns = [{"tool_calls": [{"name": "mcp__good__fast", "arguments": {"text": "hi"}}]}, {"text": "done"}]
    script.write_text(json.dumps({"turns": turns}))
    python, probe = json.dumps(sys.executable), json.dumps(str(PROBE))
    (workspace / "quorum.toml").write_text(
        f"""model = {json.dumps(f"scripted:{script}")}
[storage]
enabled = false
[tools]
enabled = ["mcp__*"]
[tools.risk]
"mcp__good__fast" = "low"
[mcp.servers.good]
command = {python}
args = [{probe}]
[mcp.servers.broken]
command = {python}
args = [{probe}, "--fail"]
required = {json.dumps(required)}
lazy = {json.dumps(lazy)}
"""
    )
    return Cli(workspace, isolated_env(tmp_path))


def _server_events(events: list[dict[str, Any]]) -> dict[str, dict[str, Any]]:
    return {e["name"]: e for e in events if e["type"] == "mcp_server"}


def test_a_failed_server_is_an_event_and_a_line_and_the_run_goes_on(tmp_path: Path) -> None:
    cli = _cli(tmp_path, required=False)
    result = cli("run", "--json", "go")
    assert result.code == 0, result.stderr
    events = result.events()
    servers = _server_events(events)
    assert servers["good"]["state"] == "started" and servers["good"]["duration_ms"] > 0
    assert servers["broken"]["state"] == "failed"
    assert "fatal: probe configured to fail" in servers["broken"]["error"]
    kinds = [e["type"] for e in events]
    assert kinds[0] == "run_started" and kinds.index("mcp_server") < kinds.index("tool_call")
    assert "failed to start" not in result.stderr  # said in the events, not again as a warning

    human = cli("run", "go")
    assert human.code == 0, human.stderr
    assert "! MCP server broken failed to start" in human.stderr
    assert "MCP server good" not in human.stderr  # a start is said only with -v


@pytest.mark.parametrize("lazy", [False, True], ids=["eager", "lazy"])
def test_a_required_server_that_fails_ends_the_run_with_exit_1(tmp_path: Path, lazy: bool) -> None:
    cli = _cli(tmp_path, required=True, lazy=lazy)
    result = cli("run", "--json", "go")
    assert result.code == 1, result.stdout + result.stderr
    events = result.events()
    assert _server_events(events)["broken"]["state"] == "failed"
    finished = events[-1]
    assert finished["type"] == "run_finished" and finished["stop_reason"] == "error"
    assert "required MCP server 'broken' failed to start" in finished["detail"]
    assert not any(e["type"] == "tool_call" for e in events)


def test_mcp_check_says_each_tool_with_its_risk(tmp_path: Path) -> None:
    cli = _cli(tmp_path, required=False)
    result = cli("mcp", "check", "good")
    assert result.code == 0, result.stderr
    lines = result.stdout.splitlines()
    assert lines[0].startswith("ok    good: started in ")
    assert any(line.split() == ["low", "lookup", "not", "pinned", "yet"] for line in lines)  # readOnlyHint
    assert any(line.split() == ["high", "wipe", "not", "pinned", "yet"] for line in lines)  # no read-only annotation
    assert any(line.split() == ["low", "fast", "not", "pinned", "yet"] for line in lines)  # the [tools] risk override
    assert any("offered as mcp__good__a_really_long" in line for line in lines)  # the name was cut
    assert "(instructions: " in result.stdout
    as_json = [json.loads(line) for line in cli("mcp", "check", "--json").stdout.splitlines()]
    good = next(r for r in as_json if r["name"] == "good")
    tools = {t["name"]: t for t in good["tools"]}
    assert tools["lookup"]["risk"] == "low" and "readOnlyHint" in tools["lookup"]["risk_reason"]
    assert tools["fast"]["risk_reason"] == "[tools] risk override 'mcp__good__fast' = 'low'"
    assert tools["fast"]["pin"] == "unpinned"  # check compares with the pins; it pins nothing
    broken = next(r for r in as_json if r["name"] == "broken")
    assert not broken["ok"] and "fatal: probe configured to fail" in broken["error"]


@pytest.mark.parametrize("required", [False, True], ids=["optional", "required"])
def test_doctor_fails_a_required_server_and_warns_about_an_optional_one(tmp_path: Path, required: bool) -> None:
    cli = _cli(tmp_path, required=required)
    result = cli("doctor", "--json")
    checks = {c["check"]: c for c in map(json.loads, result.stdout.splitlines())}
    assert checks["mcp good"]["status"] == "ok" and "tools (optional)" in checks["mcp good"]["detail"]
    broken = checks["mcp broken"]
    if required:
        assert broken["status"] == "fail" and "a run would end with exit 1" in broken["detail"]
        assert result.code == 1
    else:
        assert broken["status"] == "warn" and "runs go on without its tools" in broken["detail"]
        assert not any(c["status"] == "fail" for c in checks.values()) and result.code == 0, checks
    assert "failed to start" in broken["detail"]  # the server's own error follows
