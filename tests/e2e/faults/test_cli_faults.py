"""Hostile input through the real CLI: every case ends with its exit code, ``run_finished`` last, no
traceback, no process left, within its time bound (``run_fault`` checks all of that)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.faults.harness import run_fault, scripted

TIMEOUT = 60.0
TOO_DEEP = "arguments nested too deeply (more than 64 levels); the call was not executed"
HOSTILE = "\x1b]52;c;ZXZpbA==\x07\x1b[2J\x9b31m\u202eevil"


def deep_script(cli: Cli, levels: int) -> str:
    """A scripted model calling read_file with arguments nested ``levels`` deep.

    Written as TOML dotted table headers, which the parser reads without recursion: JSON that
    deep cannot even be loaded, so this is how such arguments reach the loop.
    """
    path = cli.workspace.parent / f"deep{levels}.toml"
    keys = ".".join(["a"] * levels)
    path.write_text(
        '[[turns]]\n[[turns.tool_calls]]\nname = "read_file"\n[turns.tool_calls.arguments]\npath = "f"\n'
        f'[turns.tool_calls.arguments.{keys}]\nx = 1\n[[turns]]\ntext = "done"\n'
    )
    return f"scripted:{path}"


@pytest.mark.parametrize("levels", [500, 2000])
def test_deep_arguments_are_an_error_result_under_json(cli: Cli, levels: int) -> None:
    result = run_fault(cli, "run", "--json", "--model", deep_script(cli, levels), "go", expect_code=0, timeout=TIMEOUT)
    events = result.events()
    call = next(e for e in events if e["type"] == "tool_call")
    assert list(call["arguments"]) == ["_not_shown"]
    output = next(e for e in events if e["type"] == "tool_result")
    assert output["is_error"] and output["output"].endswith(TOO_DEEP)
    logged = cli("logs", "show", "last", "--json")
    assert logged.code == 0 and TOO_DEEP in logged.stdout, logged.stderr


@pytest.mark.parametrize("levels", [500, 2000])
def test_deep_arguments_are_an_error_result_in_human_output(cli: Cli, levels: int) -> None:
    model = deep_script(cli, levels)
    result = run_fault(cli, "run", "--model", model, "go", expect_code=0, timeout=TIMEOUT, started=False)
    # The human output labels the call invalid and gives the reason once.
    assert "invalid: arguments nested too deeply (more than 64 levels)" in result.stderr and "done" in result.stdout


def test_arguments_larger_than_the_bound_are_an_error_result(cli: Cli) -> None:
    model = scripted(
        cli, [{"tool_calls": [{"name": "read_file", "arguments": {"path": "x" * 1_100_000}}]}, {"text": "ok"}]
    )
    result = run_fault(cli, "run", "--json", "--model", model, "go", expect_code=0, timeout=TIMEOUT)
    output = next(e for e in result.events() if e["type"] == "tool_result")
    assert "arguments too large" in output["output"] and "not executed" in output["output"]


@pytest.mark.parametrize(("signum", "code"), [(signal.SIGTERM, 143), (signal.SIGHUP, 129)], ids=["TERM", "HUP"])
def test_a_signal_during_an_approved_command_ends_the_run_and_its_process_group(
    cli: Cli, signum: int, code: int
) -> None:
    model = scripted(
        cli, [{"tool_calls": [{"name": "run_command", "arguments": {"command": "sleep 300"}}]}, {"text": "x"}]
    )
    result = run_fault(
        cli,
        "run",
        "--json",
        "--yes",
        "--model",
        model,
        "go",
        expect_code=code,
        timeout=TIMEOUT,
        send_signal=('"type":"review"', signum),
    )  # the harness fails the case if `sleep 300` is still running
    assert result.events()[-1]["stop_reason"] == "cancelled"


def test_control_sequences_in_a_read_file_are_shown_escaped(cli: Cli) -> None:
    cli.write("evil.txt", f"before {HOSTILE} after")
    model = scripted(
        cli, [{"tool_calls": [{"name": "read_file", "arguments": {"path": "evil.txt"}}]}, {"text": HOSTILE}]
    )
    result = run_fault(cli, "run", "-v", "--model", model, "go", expect_code=0, timeout=TIMEOUT, started=False)
    for raw in ("\x1b", "\x9b", "\u202e", "\x07"):
        assert raw not in result.stdout and raw not in result.stderr
    assert "\\x1b]52;c;ZXZpbA==\\x07" in result.stderr and "\\u202eevil" in result.stderr
    assert "\\x9b31m" in result.stdout  # the model's answer too


def test_a_tool_name_with_control_characters_is_shown_escaped(cli: Cli) -> None:
    model = scripted(cli, [{"tool_calls": [{"name": f"x{HOSTILE}", "arguments": {}}]}, {"text": "ok"}])
    result = run_fault(cli, "run", "--model", model, "go", expect_code=0, timeout=TIMEOUT, started=False)
    assert "\x1b" not in result.stderr and "unknown tool" in result.stderr


def test_an_unrelated_quorum_variable_is_ignored_with_a_warning(cli: Cli) -> None:
    model = scripted(cli, [{"text": "ok"}])
    result = run_fault(cli, "run", "--json", "--model", model, "go", expect_code=0, timeout=TIMEOUT, QUORUM_FOO="1")
    assert "quorum: warning: ignoring QUORUM_FOO: not a configuration key" in result.stderr


def test_strict_env_makes_an_unrelated_variable_an_error(cli: Cli) -> None:
    model = scripted(cli, [{"text": "ok"}])
    result = run_fault(
        cli, "run", "--json", "--model", model, "go", expect_code=2, timeout=TIMEOUT, started=False,
        QUORUM_FOO="1", QUORUM_STRICT_ENV="1",
    )  # fmt: skip
    assert "QUORUM_FOO" in result.stderr and result.stdout == ""


def test_the_workspace_of_a_config_file_is_relative_to_the_file(cli: Cli) -> None:
    conf = cli.workspace.parent / "conf"
    (conf / "project").mkdir(parents=True)
    (conf / "project" / "here.txt").write_text("found me")
    (conf / "quorum.toml").write_text('[tools]\nworkspace = "project"\n')
    model = scripted(cli, [{"tool_calls": [{"name": "read_file", "arguments": {"path": "here.txt"}}]}, {"text": "ok"}])
    args = ("run", "--json", "--config", "../conf/quorum.toml", "--model", model, "go")
    result = run_fault(cli, *args, expect_code=0, timeout=TIMEOUT)
    output = next(e for e in result.events() if e["type"] == "tool_result")
    assert not output["is_error"] and "found me" in output["output"]


def test_a_workspace_that_does_not_exist_is_exit_2_naming_key_and_file(cli: Cli) -> None:
    cli.write("quorum.toml", '[tools]\nworkspace = "missing"\n')
    model = scripted(cli, [{"text": "ok"}])
    result = run_fault(cli, "run", "--json", "--model", model, "go", expect_code=2, timeout=TIMEOUT, started=False)
    assert "quorum.toml: tools.workspace:" in result.stderr and "does not exist" in result.stderr


@pytest.mark.parametrize("kind", ["directory", "fifo"])
@pytest.mark.parametrize("how", ["local", "--config", "QUORUM_CONFIG"])
def test_a_config_path_that_is_not_a_regular_file_is_exit_2(cli: Cli, kind: str, how: str) -> None:
    path = cli.workspace / "quorum.toml" if how == "local" else cli.workspace.parent / "odd.toml"
    if kind == "directory":
        path.mkdir()
    else:
        os.mkfifo(path)  # reading it would block for ever
    model = scripted(cli, [{"text": "ok"}])
    args: tuple[str, ...] = ("run", "--json", "--model", model, "go")
    env = {}
    if how == "--config":
        args = (*args[:1], "--config", str(path), *args[1:])
    elif how == "QUORUM_CONFIG":
        env["QUORUM_CONFIG"] = str(path)
    result = run_fault(cli, *args, expect_code=2, timeout=TIMEOUT, started=False, **env)
    # --config DIR is refused by the option parser itself, in its words.
    assert "not a regular file" in result.stderr or (how == "--config" and "is a directory" in result.stderr)


def test_a_task_of_10_mb_on_stdin(cli: Cli) -> None:
    model = scripted(cli, [{"text": "ok"}])
    result = cli("run", "--json", "--model", model, input="x" * 10_000_000, timeout=TIMEOUT)
    assert result.code == 0 and "Traceback" not in result.stderr, result.stderr[-500:]
    events = result.events()
    assert events[0]["type"] == "run_started" and len(events[0]["task"]) == 10_000_000
    assert events[-1]["type"] == "run_finished"


def test_a_task_that_is_not_utf8(cli: Cli) -> None:
    model = scripted(cli, [{"text": "ok"}])
    # A str with a lone surrogate is passed to the child as the raw byte 0xe9 (not UTF-8).
    result = run_fault(cli, "run", "--json", "--model", model, "caf\udce9", expect_code=0, timeout=TIMEOUT)
    assert result.events()[0]["task"] == "caf\ufffd"


def test_a_task_on_stdin_that_is_not_utf8(cli: Cli) -> None:
    model = scripted(cli, [{"text": "ok"}])
    proc = subprocess.run(
        [sys.executable, "-m", "quorum.cli.main", "run", "--json", "--model", model],
        cwd=cli.workspace,
        env=cli.env,
        input=b"caf\xe9 \xff\xfe",
        capture_output=True,
        timeout=TIMEOUT,
    )
    assert proc.returncode == 0 and b"Traceback" not in proc.stderr, proc.stderr
    assert json.loads(proc.stdout.splitlines()[0])["task"] == "caf\ufffd \ufffd\ufffd"


@pytest.mark.parametrize(
    ("content", "code", "message"),
    [
        (b"\xef\xbb\xbf[agent]\nmax_tool_turns = 3\n", 0, ""),
        (b'[agent]\nsystem_prompt = "\xff\xfe"\n', 2, "not UTF-8 text"),
        (("[" + ".".join(["t"] * 5000) + "]\nx = 1\n").encode(), 2, "nested too deeply"),
        (("a = " + "[" * 5000 + "]" * 5000).encode(), 2, "nested too deeply"),
        (b"[agent\nmax_tool_turns = \x00\n", 2, "invalid TOML"),
    ],
    ids=["bom", "invalid-utf8", "toml-bomb-tables", "toml-bomb-arrays", "nul-byte"],
)
def test_hostile_config_files(cli: Cli, content: bytes, code: int, message: str) -> None:
    (cli.workspace / "quorum.toml").write_bytes(content)
    model = scripted(cli, [{"text": "ok"}])
    result = run_fault(
        cli, "run", "--json", "--model", model, "go", expect_code=code, timeout=TIMEOUT, started=code == 0
    )
    assert message in result.stderr


@pytest.mark.skipif(os.geteuid() == 0, reason="root reads files whatever their mode")
def test_an_unreadable_config_file_is_exit_2(cli: Cli) -> None:
    path = cli.write("quorum.toml", "[agent]\n")
    path.chmod(0)
    model = scripted(cli, [{"text": "ok"}])
    result = run_fault(cli, "run", "--json", "--model", model, "go", expect_code=2, timeout=TIMEOUT, started=False)
    assert "quorum.toml: cannot read" in result.stderr


def test_a_workspace_flag_naming_a_file_is_exit_2(cli: Cli) -> None:
    cli.write("plain.txt", "x")
    model = scripted(cli, [{"text": "ok"}])
    args = ("run", "--json", "--workspace", "plain.txt", "--model", model, "go")
    result = run_fault(cli, *args, expect_code=2, timeout=TIMEOUT, started=False)
    assert "--workspace" in result.stderr


def test_ten_thousand_calls_with_colliding_ids(cli: Cli) -> None:
    calls = [{"name": "list_dir", "arguments": {}, "id": "same"} for _ in range(10_000)]
    model = scripted(cli, [{"tool_calls": calls}, {"text": "ok"}])
    result = run_fault(cli, "run", "--json", "--no-log", "--model", model, "go", expect_code=0, timeout=TIMEOUT)
    events = result.events()
    assert sum(e["type"] == "tool_result" for e in events) == 10_000  # every call answered
    assert events[-1]["stop_reason"] == "end_turn"


def test_an_empty_tool_name_is_an_error_result(cli: Cli) -> None:
    model = scripted(cli, [{"tool_calls": [{"name": "", "arguments": {}}]}, {"text": "ok"}])
    result = run_fault(cli, "run", "--json", "--model", model, "go", expect_code=0, timeout=TIMEOUT)
    output = next(e for e in result.events() if e["type"] == "tool_result")
    assert output["is_error"] and "unknown tool ''" in output["output"]


def test_a_run_log_path_that_is_a_directory_does_not_crash_the_run(cli: Cli, tmp_path: Path) -> None:
    (tmp_path / "db-dir").mkdir()
    model = scripted(cli, [{"text": "ok"}])
    result = run_fault(
        cli, "run", "--json", "--model", model, "go", expect_code=0, timeout=TIMEOUT, QUORUM_DB=str(tmp_path / "db-dir")
    )
    assert result.events()[-1]["stop_reason"] == "end_turn"
