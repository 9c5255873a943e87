"""``quorum chat`` driven in a real pseudo-terminal (pexpect), as a person would use it.

Each test waits for what the chat prints (the prompt, a line naming a call) before it types, so
nothing depends on timing. The model is a scripted one that continues the conversation, so the
second message is answered with the script's second turn only if the conversation went on.
"""

from __future__ import annotations

import json
import os
import sqlite3
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.e2e.conftest import Cli

PROMPT = "›"  # drawn with escape codes around it: match the mark alone
TIMEOUT = 20  # generous: a loaded 2-core machine; never reached when things work


def _script(cli: Cli, turns: list[dict[str, Any]]) -> str:
    cli.write("chat.json", json.dumps({"conversation": "continue", "turns": turns}))
    return "scripted:chat.json"


@pytest.fixture
def chat(cli: Cli) -> Iterator[Any]:
    """Starts ``quorum chat ARGS`` in a pty (80 columns, no color) and yields the pexpect child."""
    children: list[pexpect.spawn] = []

    def start(*args: str) -> pexpect.spawn:
        # pexpect is no terminal emulator: it never answers prompt_toolkit's cursor position
        # requests, and waiting for those answers would eat what the test types meanwhile.
        env = {**cli.env, "TERM": "xterm", "NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1"}
        child = pexpect.spawn(
            sys.executable,
            ["-m", "quorum.cli.main", "chat", *args],
            cwd=str(cli.workspace),
            env=env,
            encoding="utf-8",
            timeout=TIMEOUT,
            dimensions=(40, 100),
        )
        children.append(child)
        child.expect_exact(PROMPT)
        return child

    yield start
    for child in children:
        if child.isalive():
            child.terminate(force=True)


def _runs(cli: Cli) -> list[tuple[str, str, str | None, str]]:
    """(run_id, task, parent_run_id, stop_reason) of every recorded run, oldest first."""
    db = sqlite3.connect(cli.env["QUORUM_DB"])
    try:
        rows = db.execute("SELECT id, task, parent_run_id, stop_reason FROM runs ORDER BY started_at, rowid").fetchall()
    finally:
        db.close()
    return [tuple(row) for row in rows]  # type: ignore[misc]


def _send(child: pexpect.spawn, text: str) -> None:
    child.send(text + "\r")


def test_two_messages_continue_one_conversation_and_slash_commands_report_it(cli: Cli, chat: Any) -> None:
    model = _script(
        cli,
        [
            {"text": "first answer", "usage": {"input_tokens": 10, "output_tokens": 2}},
            {"text": "second answer", "usage": {"input_tokens": 30, "output_tokens": 3}},
        ],
    )
    child = chat("--model", model)
    _send(child, "hello there")
    child.expect_exact("first answer")
    child.expect_exact(PROMPT)
    _send(child, "and again")
    child.expect_exact("second answer")  # the script went on: the run saw the first exchange
    child.expect_exact(PROMPT)
    _send(child, "/usage")
    child.expect_exact("this session: 2 runs · agent 45 tokens (40 in, 5 out)")
    child.expect_exact(PROMPT)
    _send(child, "/log")
    child.expect_exact("quorum logs show ID")
    listed = child.before
    child.expect_exact(PROMPT)
    child.sendeof()  # Ctrl+D on an empty line leaves
    child.expect(pexpect.EOF)
    child.wait()
    assert child.exitstatus == 0

    (first_id, first_task, first_parent, _), (second_id, second_task, second_parent, _) = _runs(cli)
    assert (first_task, second_task) == ("hello there", "and again")
    assert first_parent is None and second_parent == first_id  # linked as --continue links runs
    assert first_id in listed and second_id in listed


def test_alt_enter_and_a_paste_keep_newlines_in_one_message(cli: Cli, chat: Any) -> None:
    # Answers no typed text contains: the echo of "line one" must not pass for the model's answer
    # (on a loaded machine the next keys would then arrive while the first turn still runs).
    model = _script(cli, [{"text": "first answer"}, {"text": "second answer"}])
    child = chat("--model", model)
    child.send("line one\x1b\rline two\r")  # Alt+Enter (Esc, Enter) inserts a newline; Enter sends
    child.expect_exact("first answer")
    child.expect_exact(PROMPT)
    child.send("\x1b[200~pasted a\npasted b\x1b[201~\r")  # a bracketed paste keeps its newline
    child.expect_exact("second answer")
    child.expect_exact(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    tasks = [task for _, task, _, _ in _runs(cli)]
    assert tasks == ["line one\nline two", "pasted a\npasted b"]


def test_ctrl_c_mid_turn_cancels_it_and_the_conversation_goes_on(cli: Cli, chat: Any, tmp_path: Path) -> None:
    fifo = cli.workspace / "never-written"
    os.mkfifo(fifo)  # reading it blocks until a writer comes: a tool that runs until cancelled
    cli.write("quorum.toml", '[tools.sandbox]\nmode = "off"\n')  # the host runs it: no bubblewrap needed
    model = _script(
        cli,
        [
            {"text": "reading", "tool_calls": [{"name": "run_command", "arguments": {"command": "cat never-written"}}]},
            {"text": "still here"},
        ],
    )
    child = chat("--model", model)
    _send(child, "read the pipe")
    child.expect_exact("→ run_command")
    child.sendintr()  # Ctrl+C while the command runs
    child.expect_exact("cancelled")
    child.expect_exact(PROMPT)
    _send(child, "are you there?")
    child.expect_exact("still here")  # a valid conversation: the cancelled call was answered
    child.expect_exact(PROMPT)
    child.sendintr()
    child.expect_exact("Ctrl+C again")
    child.sendintr()  # twice on an empty line: leave
    child.expect(pexpect.EOF)
    child.wait()
    assert child.exitstatus == 0

    (first, _, _, status), (_, _, parent, _) = _runs(cli)
    assert status == "cancelled" and parent == first
    leftover = subprocess.run(["pgrep", "-f", "cat never-written"], capture_output=True, text=True)
    assert leftover.stdout == "", "the cancelled command is still running"


def test_review_prompt_is_answered_in_the_chat(cli: Cli, chat: Any) -> None:
    model = _script(
        cli,
        [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "note.txt", "content": "approved\n"}}]},
            {"text": "written"},
        ],
    )
    child = chat("--model", model)
    _send(child, "write a note")
    child.expect_exact("Approve write_file?")
    child.send("y\r")
    child.expect_exact("written")
    child.expect_exact(PROMPT)
    _send(child, "/exit")
    child.expect(pexpect.EOF)
    assert (cli.workspace / "note.txt").read_text() == "approved\n"


def test_model_switch_review_mode_and_unknown_commands(cli: Cli, chat: Any) -> None:
    first = _script(
        cli,
        [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "x.txt", "content": "x"}}]},
            {"text": "after the rejection"},
        ],
    )
    cli.write(
        "other.json",
        json.dumps(
            {"conversation": "continue", "turns": [{"text": "a"}, {"text": "b"}, {"text": "other model speaking"}]}
        ),
    )
    child = chat("--model", first)
    _send(child, "/revie auto_reject")  # a unique prefix names the command
    child.expect_exact("review: auto_reject from the next message on")
    child.expect_exact(PROMPT)
    _send(child, "write x")
    child.expect_exact("after the rejection")
    child.expect_exact(PROMPT)
    _send(child, "/model scripted:other.json")
    child.expect_exact("model: scripted:other.json")
    child.expect_exact(PROMPT)
    _send(child, "who is this?")
    child.expect_exact("other model speaking")  # the third answer: the conversation came along
    child.expect_exact(PROMPT)
    _send(child, "/mdoel")
    child.expect_exact("unknown command /mdoel (did you mean /model")
    child.expect_exact(PROMPT)
    _send(child, "/model nosuch:thing")
    child.expect_exact("quorum: error:")
    child.expect_exact(PROMPT)
    _send(child, "/exit")
    child.expect(pexpect.EOF)
    assert not (cli.workspace / "x.txt").exists()


def test_a_setup_error_after_the_prompt_is_drawn_ends_the_chat_as_run_would(cli: Cli) -> None:
    env = {**cli.env, "TERM": "xterm", "NO_COLOR": "1", "PROMPT_TOOLKIT_NO_CPR": "1"}
    child = pexpect.spawn(
        sys.executable,
        ["-m", "quorum.cli.main", "chat", "--model", "nosuch:model"],
        cwd=str(cli.workspace),
        env=env,
        encoding="utf-8",
        timeout=TIMEOUT,
    )
    child.expect_exact("quorum: error:")
    child.expect(pexpect.EOF)
    child.wait()
    assert child.exitstatus == 2  # a usage error, as `quorum run --model nosuch:model` exits


def test_chat_reads_messages_from_a_pipe_one_per_line(cli: Cli) -> None:
    model = _script(cli, [{"text": "first answer"}, {"text": "second answer"}])
    result = cli("chat", "--model", model, input="one\n/usage\ntwo\n")
    assert result.code == 0, result.stderr
    assert result.stdout.count("answer") == 2 and "this session: 1 run ·" in result.stdout


def test_continue_and_resume_by_prefix_go_on_with_a_recorded_conversation(cli: Cli) -> None:
    model = _script(cli, [{"text": "first answer"}, {"text": "second answer"}])
    assert cli("chat", "--model", model, input="one\n").code == 0
    ((first_id, _, _, _),) = _runs(cli)
    continued = cli("chat", "--continue", "--model", model, input="two\n")
    assert "second answer" in continued.stdout  # the script went on: the run saw the first exchange
    resumed = cli("chat", "--model", model, input=f"/resume {first_id[:6]}\nthree\n")
    assert f"resumed run {first_id} (2 messages)" in resumed.stdout and "second answer" in resumed.stdout
    parents = [parent for _, _, parent, _ in _runs(cli)]
    assert parents == [None, first_id, first_id]


def test_undo_shows_the_last_message_run_asks_and_restores_the_file(cli: Cli, chat: Any) -> None:
    cli.write("a.txt", "before\n")
    model = _script(
        cli,
        [
            {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}, "id": "r1"}]},
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "after\n"}, "id": "w1"}]},
            {"text": "edited"},
        ],
    )
    child = chat("--model", model)
    _send(child, "/review auto_approve")
    child.expect_exact(PROMPT)
    _send(child, "edit a")
    child.expect_exact("edited")
    child.expect_exact(PROMPT)
    assert (cli.workspace / "a.txt").read_text() == "after\n"
    _send(child, "/undo")
    child.expect_exact("restore   a.txt (the run changed it)")
    child.expect_exact("apply this undo? [y/N]")
    child.expect_exact(PROMPT)
    _send(child, "n")
    child.expect_exact("nothing was changed")
    child.expect_exact(PROMPT)
    assert (cli.workspace / "a.txt").read_text() == "after\n"  # declined: unchanged
    _send(child, "/undo")
    child.expect_exact("apply this undo? [y/N]")
    child.expect_exact(PROMPT)
    _send(child, "y")
    child.expect_exact("undone: 1 path of run")
    child.expect_exact(PROMPT)
    _send(child, "/exit")
    child.expect(pexpect.EOF)
    assert (cli.workspace / "a.txt").read_text() == "before\n"


def test_undo_in_chat_names_a_file_changed_since_the_run_and_changes_nothing(cli: Cli, chat: Any) -> None:
    model = _script(
        cli,
        [
            {"tool_calls": [{"name": "write_file", "arguments": {"path": "n.txt", "content": "new\n"}, "id": "w1"}]},
            {"text": "made"},
        ],
    )
    child = chat("--model", model)
    _send(child, "/review auto_approve")
    child.expect_exact(PROMPT)
    _send(child, "make n")
    child.expect_exact("made")
    child.expect_exact(PROMPT)
    cli.write("n.txt", "by hand\n")
    _send(child, "/undo")
    child.expect_exact("CHANGED SINCE THE RUN: n.txt")
    child.expect_exact("nothing was changed")
    child.expect_exact(PROMPT)
    _send(child, "/exit")
    child.expect(pexpect.EOF)
    assert (cli.workspace / "n.txt").read_text() == "by hand\n"
