"""The run log end to end: ``quorum run`` records, ``quorum logs``/``stats`` read, a SIGKILL loses nothing."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from quorum.application.history import unanswered_calls
from quorum.infrastructure.storage.sqlite_store import SqliteRunStore
from tests.e2e.conftest import Cli

FAKE_CONFIG_KEY = "sk-fake-config-5f2c9e7d1b3a48e6"
FAKE_ENV_KEY = "sk-fake-env-a41b8c0e9d2f6375"


def script(cli: Cli, *turns: dict, name: str = "script.json") -> str:
    cli.write(name, json.dumps({"turns": list(turns)}))
    return f"scripted:{name}"


def db(cli: Cli) -> Path:
    return Path(cli.env["QUORUM_DB"])


def two_turn_run(cli: Cli, *extra: str) -> list[dict]:
    cli.write("notes.txt", "remember the milk\n")
    (cli.workspace / "todo.txt").unlink(missing_ok=True)  # a new file each run: an existing one needs a read first
    model = script(
        cli,
        {
            "text": "Reading the notes first.",
            "tool_calls": [
                {"name": "read_file", "arguments": {"path": "notes.txt"}},
                {"name": "write_file", "arguments": {"path": "todo.txt", "content": "milk"}},
            ],
            "usage": {"input_tokens": 11, "output_tokens": 4},
        },
        {"text": "Wrote todo.txt with the milk.", "usage": {"input_tokens": 20, "output_tokens": 6}},
    )
    result = cli("run", "--model", model, "--json", "--yes", *extra, "turn notes into a todo")
    assert result.code == 0, result.stderr
    return result.events()


def test_logs_show_replays_exactly_what_run_json_emitted(cli: Cli) -> None:
    emitted = two_turn_run(cli)
    shown = cli("logs", "show", "last", "--json")
    assert shown.code == 0, shown.stderr
    run, *events = shown.events()
    assert run["type"] == "run" and run["run_id"] == emitted[0]["run_id"]
    assert (run["status"], run["turns"], run["tool_calls"]) == ("end_turn", 2, 2)
    assert run["usage"] == {
        "input_tokens": 31,
        "output_tokens": 10,
        "cache_read_input_tokens": 0,
        "cache_write_input_tokens": 0,
        "reviewer_input_tokens": 0,
        "reviewer_output_tokens": 0,
    }
    assert all(event.pop("at").endswith("Z") for event in events)
    assert events == emitted

    by_id = cli("logs", "show", run["run_id"], "--json")
    assert by_id.stdout == shown.stdout


def test_logs_list_show_and_search_for_people(cli: Cli) -> None:
    first = two_turn_run(cli)[0]["run_id"]
    model = script(cli, {"text": "Nothing to do here."}, name="second.json")
    assert cli("run", "--model", model, "say hi").code == 0

    listed = cli("logs", "list")
    assert listed.code == 0, listed.stderr
    lines = listed.stdout.splitlines()
    assert lines[0].split()[:3] == ["RUN", "STARTED", "STATUS"]
    assert "say hi" in lines[1] and first in lines[2] and "end_turn" in lines[2]
    assert [json.loads(x)["task"] for x in cli("logs", "list", "-n", "1", "--json").stdout.splitlines()] == ["say hi"]

    shown = cli("logs", "show", first).stdout
    for expected in (
        "task:      turn notes into a todo",
        "── turn 1 ──",
        "model: Reading the notes first.",
        '→ read_file [low] {"path": "notes.txt"}',
        "→ write_file [high]",
        "review of",
        "← read_file ok",
        "remember the milk",
        "■ end_turn after 2 turn(s)",
    ):
        assert expected in shown, expected

    found = cli("logs", "search", "MILK", "--json").events()
    assert {(h["run_id"], h["where"]) for h in found} >= {(first, "tool_result"), (first, "text")}
    missing = cli("logs", "search", "no such words anywhere")
    assert missing.code == 1 and "no match" in missing.stderr


def test_stats_count_runs_tools_and_decisions(cli: Cli) -> None:
    two_turn_run(cli)
    two_turn_run(cli)
    totals = json.loads(cli("stats", "--json").stdout)
    assert (totals["runs"], totals["turns"], totals["tool_calls"]) == (2, 4, 4)
    assert {t["name"]: t["calls"] for t in totals["tools"]} == {"read_file": 2, "write_file": 2}
    assert sum(totals["decisions_by"].values()) == 2
    human = cli("stats").stdout
    assert "runs:       2 (end_turn 2)" in human and "read_file" in human


def test_no_log_runs_are_not_recorded(cli: Cli) -> None:
    two_turn_run(cli, "--no-log")
    assert json.loads(cli("stats", "--json").stdout)["runs"] == 0
    missing = cli("logs", "show", "last")
    assert missing.code == 2 and "no runs recorded yet" in missing.stderr


def test_secrets_never_reach_the_log(cli: Cli) -> None:
    cli.write(
        "quorum.toml",
        f'[providers.work]\ntype = "openai"\napi_key = "{FAKE_CONFIG_KEY}"\n'
        '[providers.other]\ntype = "openai"\napi_key_env = "OTHER_KEY"\n',
    )
    cli.env.update(OPENAI_API_KEY=FAKE_ENV_KEY, OTHER_KEY=FAKE_ENV_KEY)
    events = two_turn_run(cli)
    assert events[-1]["stop_reason"] == "end_turn"
    files = [p for p in db(cli).parent.iterdir() if p.name.startswith(db(cli).name)]
    assert db(cli) in files
    content = b"".join(p.read_bytes() for p in files)
    assert b"remember the milk" in content  # the log does hold the run...
    for key in (FAKE_CONFIG_KEY, FAKE_ENV_KEY):  # ...but never a key
        assert key.encode() not in content


def test_a_sigkilled_cli_run_shows_as_interrupted_with_every_event_up_to_the_kill(cli: Cli) -> None:
    wait = "touch started; while [ ! -f release ]; do sleep 0.05; done; echo released"
    model = script(
        cli,
        {"text": "Waiting for the release file.", "tool_calls": [
            {"name": "run_command", "arguments": {"command": wait, "timeout": 120}}]},
        {"text": "never reached"},
    )  # fmt: skip
    child = subprocess.Popen(
        [sys.executable, "-m", "quorum.cli.main", "run", "--model", model, "--json", "--yes", "wait for it"],
        cwd=cli.workspace,
        env=cli.env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    try:
        deadline = time.monotonic() + 60
        while not (cli.workspace / "started").exists():  # the tool is running: the run is mid-turn
            assert child.poll() is None, child.communicate()[1].decode()
            assert time.monotonic() < deadline, "the tool never started"
            time.sleep(0.02)
        os.kill(child.pid, signal.SIGKILL)
        out, _ = child.communicate()
    finally:
        (cli.workspace / "release").touch()  # lets the orphaned shell end
    emitted = [json.loads(line) for line in out.decode().splitlines()]

    shown = cli("logs", "show", "last", "--json")
    assert shown.code == 0, shown.stderr
    run, *events = shown.events()
    assert (run["status"], run["ended_at"], run["turns"]) == ("interrupted", None, 1)
    for event in events:
        event.pop("at")
    assert events == emitted  # everything the run said before it died, nothing more
    assert [e["type"] for e in events][-2:] == ["tool_call", "review"]
    assert "interrupted" in cli("logs", "list").stdout.splitlines()[1]

    # Resume it. The test model calls tools only in a conversation without tool calls yet, so a
    # one-turn answer without calls shows the recorded conversation reached the model.
    resumed = cli("run", "--resume", run["run_id"], "--model", "test", "--json", "carry on")
    assert resumed.code == 0, resumed.stderr
    resumed_events = resumed.events()
    assert "tool_call" not in {e["type"] for e in resumed_events}
    assert resumed_events[-1]["turns"] == 1
    new_run, *_ = cli("logs", "show", "last", "--json").events()
    assert new_run["parent_run_id"] == run["run_id"] and new_run["status"] == "end_turn"
    assert f"continues: {run['run_id']}" in cli("logs", "show", "last").stdout

    store = SqliteRunStore(db(cli))
    try:
        history = store.load_history(new_run["run_id"])
    finally:
        store.close()
    assert unanswered_calls(history) == []
    assert [m.role for m in history] == ["user", "assistant", "user", "assistant"]
    assert history[0].content[0].text == "wait for it"
    interrupted, task = history[2].content
    assert interrupted.is_error and interrupted.output.startswith("interrupted")
    assert task.text == "carry on"


def test_continue_picks_up_the_last_run(cli: Cli) -> None:
    first = two_turn_run(cli)[0]["run_id"]
    result = cli("run", "--continue", "--model", "test", "--json", "and now?")
    assert result.code == 0, result.stderr
    assert result.events()[-1]["turns"] == 1  # the earlier calls were in its history
    run, *_ = cli("logs", "show", "last", "--json").events()
    assert (run["parent_run_id"], run["task"]) == (first, "and now?")
    assert run["config_digest"].startswith("sha256:")


def test_an_unknown_storage_backend_is_a_configuration_error(cli: Cli) -> None:
    cli.write("quorum.toml", '[storage]\nbackend = "mongodb"\n')
    result = cli("logs", "list")
    assert result.code == 2
    assert "storage.backend" in result.stderr and "no run-store plugin 'mongodb' (" in result.stderr
    assert "postgres" in result.stderr and "sqlite" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_run_with_an_unknown_storage_backend_stops_before_starting(cli: Cli) -> None:
    cli.write("quorum.toml", '[storage]\nbackend = "mongodb"\n')
    result = cli("run", "--model", "test", "--json", "x")
    assert result.code == 2 and result.stdout == ""
    assert "no run-store plugin 'mongodb'" in result.stderr
