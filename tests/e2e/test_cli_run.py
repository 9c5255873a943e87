"""``quorum run`` / ``quorum ask`` end to end: the --json contract, human output and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys

from tests.e2e.conftest import REPO, Cli

CONTRACT = {
    "run_started": {"run_id", "model", "task"},
    "turn_started": {"turn"},
    "text": {"text"},
    "tool_call": {"id", "name", "arguments", "risk"},
    "vote": {"call_id", "reviewer", "verdict", "reason", "latency_ms"},
    "review": {"call_id", "name", "approved", "decided_by", "votes", "reason"},
    "progress": {"call_id", "message", "progress", "total"},
    "tool_result": {"call_id", "name", "is_error", "is_rejected", "output", "duration_ms"},
    "turn_finished": {"turn"},
    "run_finished": {"stop_reason", "turns", "output", "usage"},
}


def script(cli: Cli, *turns: dict, name: str = "script.json", **extra: object) -> str:
    cli.write(name, json.dumps({"turns": list(turns), **extra}))
    return f"scripted:{name}"


def assert_contract(events: list[dict]) -> None:
    assert events[0]["type"] == "run_started" and events[-1]["type"] == "run_finished"
    for event in events:
        assert CONTRACT[event["type"]] <= set(event), event
    for vote in (v for e in events if e["type"] == "review" for v in e["votes"]):
        assert {"reviewer", "verdict", "reason"} <= set(vote)
    assert set(events[-1]["usage"]) >= {"input_tokens", "output_tokens"}


def test_json_run_with_the_test_model(cli: Cli) -> None:
    cli.write("notes.txt", "hello\n")
    result = cli("run", "--model", "test", "--json", "read notes.txt")
    assert result.code == 0, result.stderr
    events = result.events()
    assert_contract(events)
    calls = [e for e in events if e["type"] == "tool_call"]
    assert calls and all(c["risk"] == "low" for c in calls)
    assert {e["call_id"] for e in events if e["type"] == "tool_result"} == {c["id"] for c in calls}
    assert events[-1]["stop_reason"] == "end_turn" and events[-1]["turns"] == 2
    assert "Test model saw" in events[-1]["output"]


def test_json_stdout_has_only_json(cli: Cli) -> None:
    cli.write("a.txt", "x")
    model = script(
        cli,
        {"text": "hi", "tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "bye"},
    )
    result = cli("run", "--model", model, "--json", "go")
    assert result.code == 0, result.stderr
    for line in result.stdout.splitlines():
        json.loads(line)
    assert_contract(result.events())


def test_high_risk_call_without_terminal_is_rejected_and_reason_reaches_model(cli: Cli) -> None:
    model = script(
        cli,
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}}]},
        {"text": "ok, not writing"},
    )
    result = cli("run", "--model", model, "--json", "write it")
    assert result.code == 0, result.stderr
    events = result.events()
    review = next(e for e in events if e["type"] == "review")
    assert review["approved"] is False
    res = next(e for e in events if e["type"] == "tool_result")
    assert res["is_rejected"] and review["reason"] in res["output"]
    assert not (cli.workspace / "out.txt").exists()


def test_yes_approves_high_risk_calls(cli: Cli) -> None:
    model = script(
        cli,
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "written"}}]},
        {"text": "done"},
    )
    result = cli("run", "--model", model, "--json", "--yes", "write it")
    assert result.code == 0, result.stderr
    review = next(e for e in result.events() if e["type"] == "review")
    assert review["approved"] is True
    assert (cli.workspace / "out.txt").read_text() == "written"


def test_ask_offers_no_high_risk_tools(cli: Cli) -> None:
    model = script(
        cli,
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "o", "content": "x"}}]},
        {"text": "ok"},
    )
    result = cli("ask", "--model", model, "--json", "--workspace", str(cli.workspace), "q")
    assert result.code == 0, result.stderr
    res = next(e for e in result.events() if e["type"] == "tool_result")
    assert res["is_error"] and "unknown tool 'write_file'" in res["output"]
    assert not (cli.workspace / "o").exists()


def test_exit_3_when_turn_limit_reached(cli: Cli) -> None:
    turn = {"tool_calls": [{"name": "list_dir", "arguments": {}}]}
    model = script(cli, turn, turn, turn, {"text": "summary"})
    result = cli("run", "--model", model, "--json", "--max-turns", "2", "loop")
    assert result.code == 3, result.stderr
    final = result.events()[-1]
    assert (final["stop_reason"], final["output"]) == ("max_turns", "summary")


def test_exit_1_on_run_failure_with_one_clear_line(cli: Cli) -> None:
    model = script(cli, {"tool_calls": [{"name": "list_dir", "arguments": {}}]})
    result = cli("run", "--model", model, "--json", "go")
    assert result.code == 1
    assert result.events()[-1]["stop_reason"] == "error"
    assert "ran out of script" in result.stderr
    assert "Traceback" not in result.stderr


def test_exit_2_on_bad_config_without_traceback(cli: Cli) -> None:
    cli.write("quorum.toml", "[agent]\nmax_tool_turns = 0\n")
    result = cli("run", "--model", "test", "x")
    assert result.code == 2
    assert "quorum.toml: agent.max_tool_turns: must be ≥ 1, got 0" in result.stderr
    assert "Traceback" not in result.stderr and result.stdout == ""


def test_exit_2_on_unknown_provider(cli: Cli) -> None:
    result = cli("run", "--model", "nosuch:model", "--json", "x")
    assert result.code == 2
    assert "unknown provider 'nosuch'" in result.stderr and result.stdout == ""


def test_no_model_and_no_key_explains_how_to_start(cli: Cli) -> None:
    result = cli("run", "hello")
    assert result.code == 2
    assert "--model test" in result.stderr and "OPENAI_API_KEY" in result.stderr
    assert "examples/demo.toml" in result.stderr


def test_human_output_shows_calls_results_and_final_line(cli: Cli) -> None:
    cli.write("a.txt", "alpha\n")
    model = script(
        cli,
        {"text": "Reading.", "tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}}]},
        {"text": "The file says alpha."},
    )
    result = cli("run", "--model", model, "go")
    assert result.code == 0, result.stderr
    assert "The file says alpha." in result.stdout
    assert '→ read_file {"path": "a.txt"}\n' in result.stderr
    assert "← read_file ✓" in result.stderr
    assert "done · 2 turns" in result.stderr


def test_demo_script_runs_offline(cli: Cli) -> None:
    for name in ("README.md", "pyproject.toml"):
        (cli.workspace / name).write_text((REPO / name).read_text())
    result = cli("run", "--model", f"scripted:{REPO / 'examples' / 'demo.toml'}", "--json", "Summarise this project")
    assert result.code == 0, result.stderr
    events = result.events()
    assert_contract(events)
    first_turn = events[: next(i for i, e in enumerate(events) if e["type"] == "turn_finished")]
    assert sum(e["type"] == "tool_call" for e in first_turn) == 3
    review = next(e for e in events if e["type"] == "review")
    assert review["name"] == "write_file" and review["approved"] is False


def test_version_and_help() -> None:
    out = subprocess.run([sys.executable, "-m", "quorum.cli.main", "--version"], capture_output=True, text=True)
    assert out.returncode == 0 and out.stdout.startswith("quorum ")
    out = subprocess.run([sys.executable, "-m", "quorum.cli.main", "--help"], capture_output=True, text=True)
    assert out.returncode == 0 and "run" in out.stdout and "ask" in out.stdout


def test_help_and_version_import_no_sdk_no_mcp_and_no_opentelemetry() -> None:
    code = (
        "import sys\n"
        "import quorum\n"
        "from quorum.cli.main import cli\n"
        "for args in (['--help'], ['--version'], ['run', '--help'], ['serve', '--help'], ['acp', '--help']):\n"
        "    try:\n"
        "        cli.main(args=args, prog_name='quorum', standalone_mode=False)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "heavy = ('openai', 'anthropic', 'mcp', 'httpx2', 'dependency_injector', 'starlette', 'uvicorn', 'acp',"
        " 'opentelemetry')\n"
        "print('LOADED', sorted(m for m in heavy if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "LOADED []"


def test_an_open_stdin_pipe_nobody_writes_to_neither_blocks_the_task_nor_the_review(cli: Cli) -> None:
    """A CI step or an editor's runner leaves stdin an open pipe: the run goes on, the review fails closed."""
    model = script(
        cli,
        {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}}]},
        {"text": "not written"},
    )
    out, err = cli.workspace.parent / "stdout", cli.workspace.parent / "stderr"
    with out.open("w") as stdout_file, err.open("w") as stderr_file:
        proc = subprocess.Popen(
            [sys.executable, "-m", "quorum.cli.main", "run", "--model", model, "--json", "write it"],
            cwd=cli.workspace,
            env=cli.env,
            stdin=subprocess.PIPE,  # kept open and never written to until the run has ended
            stdout=stdout_file,
            stderr=stderr_file,
        )
        try:
            proc.wait(timeout=120)  # a guard against hanging, not a measure of speed
        finally:
            if proc.poll() is None:
                proc.kill()
            proc.stdin.close()
    stdout, stderr = out.read_text(), err.read_text()
    assert proc.returncode == 0, stderr
    assert "nothing arrived on stdin" in stderr
    events = [json.loads(line) for line in stdout.splitlines() if line.strip()]
    review = next(e for e in events if e["type"] == "review")
    assert review["approved"] is False
    assert events[0]["task"] == "write it"
    assert not (cli.workspace / "out.txt").exists()
