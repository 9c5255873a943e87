"""The sandbox as users meet it: `ask` offering run_command, `required`, `tools list`, `doctor`, `config show`."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import Cli
from tests.support.sandbox import require_bubblewrap

NO_SANDBOX = '[tools.sandbox]\nprogram = "/nonexistent/bwrap"\n'

SCRIPT = """
[[turns]]
tool_calls = [
  { id = "low", name = "run_command", arguments = { command = "git log --oneline; ls" } },
  { id = "high", name = "run_command", arguments = { command = "touch made-by-ask.txt" } },
]

[[turns]]
text = "done"
"""


def test_ask_offers_run_command_with_a_sandbox_and_runs_only_its_low_risk_calls(cli: Cli) -> None:
    require_bubblewrap()
    cli.write("script.toml", SCRIPT)
    cli.write("notes.txt", "x\n")
    result = cli("ask", "--json", "--model", "scripted:script.toml", "what changed?")
    assert result.code == 0, result.stderr
    outputs = {e["call_id"]: e for e in result.events() if e["type"] == "tool_result"}
    assert not outputs["low"]["is_error"] and "notes.txt" in outputs["low"]["output"]
    assert outputs["high"]["is_rejected"] and "read-only (ask) mode" in outputs["high"]["output"]
    assert not (cli.workspace / "made-by-ask.txt").exists()


def test_ask_does_not_offer_run_command_without_a_sandbox(cli: Cli) -> None:
    cli.write("quorum.toml", NO_SANDBOX)
    cli.write("script.toml", SCRIPT)
    result = cli("ask", "--json", "--model", "scripted:script.toml", "what changed?")
    outputs = {e["call_id"]: e for e in result.events() if e["type"] == "tool_result"}
    assert outputs["low"]["is_error"] and "unknown tool 'run_command'" in outputs["low"]["output"]


def test_without_a_sandbox_every_command_is_reviewed_and_says_why(cli: Cli) -> None:
    cli.write("quorum.toml", NO_SANDBOX)
    cli.write("script.toml", SCRIPT)
    result = cli("run", "--json", "--model", "scripted:script.toml", "go")
    calls = {e["id"]: e for e in result.events() if e["type"] == "tool_call"}
    assert calls["low"]["risk"] == "high"
    reviewed = [e for e in result.events() if e["type"] == "review"]
    assert {e["call_id"] for e in reviewed} == {"low", "high"}


def test_required_without_a_sandbox_refuses_to_start(cli: Cli) -> None:
    cli.write("quorum.toml", NO_SANDBOX + 'mode = "required"\n')
    cli.write("script.toml", SCRIPT)
    result = cli("run", "--json", "--model", "scripted:script.toml", "go")
    assert result.code == 2
    assert result.stdout == ""
    assert "tools.sandbox.mode" in result.stderr and "no sandbox available: install bubblewrap" in result.stderr
    assert "Traceback" not in result.stderr
    asked = cli("ask", "--json", "--model", "scripted:script.toml", "go")  # ask does not offer run_command then
    assert asked.code == 0, asked.stderr


@pytest.mark.parametrize(
    ("config", "shown"),
    [
        ("", "sandboxed (bubblewrap)"),
        (NO_SANDBOX, "no sandbox: every call reviewed"),
        ('[tools.sandbox]\nmode = "off"\n', "sandbox off"),
    ],
)
def test_tools_list_and_config_show_say_how_run_command_runs(cli: Cli, config: str, shown: str) -> None:
    if not config:
        require_bubblewrap()
    cli.write("quorum.toml", config)
    rows = [json.loads(line) for line in cli("tools", "list", "--json").stdout.splitlines()]
    (row,) = [r for r in rows if r["name"] == "run_command"]
    assert row["sandbox"] == shown
    assert row["per_call_risk"] is (shown == "sandboxed (bubblewrap)")
    assert f"↳ {shown}" in cli("tools", "list").stdout
    assert f"# run_command: {shown}" in cli("config", "show").stdout
    assert json.loads(cli("config", "show", "--json").stdout)["run_command"].startswith(shown)


def test_doctor_reports_each_check_and_fails_on_a_required_sandbox_missing(cli: Cli) -> None:
    cli.write("quorum.toml", NO_SANDBOX + 'mode = "required"\n')
    result = cli("doctor", "--json")
    checks = {c["check"]: c for c in map(json.loads, result.stdout.splitlines())}
    assert result.code == 1
    assert checks["sandbox"]["status"] == "fail"
    assert checks["provider openai"]["status"] == "warn" and "OPENAI_API_KEY" in checks["provider openai"]["detail"]
    assert checks["model"]["status"] == "fail"
    assert checks["run log"]["status"] == "ok"
    cli.write("quorum.toml", 'model = "test"\n[tools.sandbox]\nmode = "off"\n')
    fine = cli("doctor", OPENAI_API_KEY="sk-anything-12345")
    assert fine.code == 0, fine.stdout + fine.stderr
    assert "provider openai        key from OPENAI_API_KEY" in fine.stdout
    assert "WARN  sandbox" in fine.stdout
