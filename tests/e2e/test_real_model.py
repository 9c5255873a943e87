"""``quorum run`` and ``quorum chat`` against a real model: Qwen2.5-Coder-1.5B on llama.cpp's server.

Every other test talks to scripted models; these check that a real (small, local) model can work
through Quorum end to end: tool calls parsed from the wire, results sent back, an answer at the end.
The server (``tests/support/real_model``) is started once for this file, which ``--dist loadfile``
keeps in one worker. It is slow here (about 15 tokens a second idle, 1-3 under load), so there are
few tests, tiny tasks, a cap on the output tokens, and timeouts of many minutes that only a broken
run reaches. Sampling is greedy: a given build answers a given request the same way every time.

What is asserted is what a real model can be relied on for: the run ends ``end_turn`` within its
limits, a fact that is only in a file is in the answer, the file asked for is written, a chat past
its context window is compacted and goes on. Never the wording.

Under CI (``CI`` set) a missing server package or model fails these tests; elsewhere they skip with
the reason (``pip install -e ".[realmodel]"``, ``python tests/support/real_model/install.py``).
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli, Result, isolated_env
from tests.support.real_model import MODEL_NAME, Missing, RealModelServer, start_server

pytestmark = pytest.mark.real_model

RUN_TIMEOUT = 1800  # seconds for one CLI process: a handful of requests at 1-3 tokens/s under load
MAX_TOOL_TURNS = 4  # each task needs one tool turn; the rest leaves room for a detour


def _filler(lines: int) -> str:
    """Lines with nothing in them, before a file's one fact (about 12 tokens a line)."""
    return "".join(f"filler line {n}: nothing to see on this line.\n" for n in range(1, lines + 1))


@pytest.fixture(scope="session")
def real_model(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RealModelServer]:
    """The model server for the session; missing parts fail under CI and skip (with why) elsewhere."""
    try:
        server = start_server(tmp_path_factory.mktemp("real-model") / "server.log")
    except Missing as missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must run the real-model tests: {missing} (.ci/run installs it)")
        pytest.skip(f"no real model here: {missing}")
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture
def local(tmp_path: Path, real_model: RealModelServer, tmp_path_factory: pytest.TempPathFactory) -> Cli:
    """A ``cli`` whose ``quorum.toml`` points at the server (``[providers.local]``, type openai).

    Every test of this file gets the same (emptied) workspace folder: the system prompt names it,
    so the prompt's start (system prompt, tools) is the same in every test and the server reuses
    its cached computation instead of spending a minute on it under load.
    """
    workspace = tmp_path_factory.getbasetemp() / "real-model-workspace"
    shutil.rmtree(workspace, ignore_errors=True)
    workspace.mkdir()
    cli = Cli(workspace, isolated_env(tmp_path))
    cli.write(
        "quorum.toml",
        f'''model = "local:{MODEL_NAME}"

[providers.local]
type = "openai"
base_url = "{real_model.base_url}"
api_key = "unused"
timeout = {RUN_TIMEOUT}
max_retries = 1
max_tokens = 200

[agent]
max_tool_turns = {MAX_TOOL_TURNS}
timeout_seconds = {RUN_TIMEOUT}

[tools]
enabled = ["read_file", "grep_search", "write_file"]
''',
    )
    return cli


def _timed(cli: Cli, *args: str, input: str | None = None, runs: int = 1) -> Result:
    """``cli(*args)`` given ``runs`` runs' time, its time printed (pytest shows it with ``-s``)."""
    started = time.monotonic()
    result = cli(*args, input=input, timeout=runs * RUN_TIMEOUT + 60)
    print(f"\n[real model] quorum {args[0]}: {time.monotonic() - started:.0f} s")
    return result


def _finished(result: Result) -> dict[str, Any]:
    assert result.code == 0, result.stdout[-2000:] + result.stderr
    events = result.events()
    finished = events[-1]
    assert finished["type"] == "run_finished"
    assert finished["stop_reason"] == "end_turn", finished
    assert finished["turns"] <= MAX_TOOL_TURNS + 1
    return finished


def _calls(result: Result) -> list[dict[str, Any]]:
    return [event for event in result.events() if event["type"] == "tool_call"]


def test_reads_a_file_and_answers_with_a_fact_from_it(local: Cli) -> None:
    local.write("notes.txt", _filler(10) + "The release codename is PELICAN-42.\n")
    result = _timed(local, "run", "--json", "Read the file notes.txt and tell me the release codename.")
    finished = _finished(result)
    assert "PELICAN-42" in finished["output"]
    assert any(c["name"] == "read_file" and c["arguments"].get("path") == "notes.txt" for c in _calls(result))


def test_searches_the_workspace_and_answers(local: Cli) -> None:
    local.write("src/app.py", "import os\n\n\ndef main() -> None:\n    print(os.getcwd())\n")
    local.write("src/limits.py", '"""Limits."""\n\nMAX_WIDGETS = 640\nMIN_WIDGETS = 2\n')
    local.write("README.md", "# Widgets\n\nA small program.\n")
    result = _timed(local, "run", "--json", "Search the files for MAX_WIDGETS and tell me the value it is set to.")
    finished = _finished(result)
    assert "640" in finished["output"]
    assert any(c["name"] == "grep_search" for c in _calls(result))


def test_a_reviewed_write_approved_with_yes_writes_the_file(local: Cli) -> None:
    result = _timed(
        local, "run", "--json", "--yes", "Create the file greeting.txt containing the text: hello from quorum"
    )
    _finished(result)
    written = [c for c in _calls(result) if c["name"] == "write_file"]
    assert written and all(c["risk"] == "high" for c in written)  # reviewed: approved by --yes
    assert "hello from quorum" in (local.workspace / "greeting.txt").read_text().lower()


def _runs(cli: Cli) -> list[tuple[str, str]]:
    """(run_id, stop_reason) of every recorded run, oldest first."""
    db = sqlite3.connect(cli.env["QUORUM_DB"])
    try:
        return db.execute("SELECT id, stop_reason FROM runs ORDER BY started_at, rowid").fetchall()
    finally:
        db.close()


def test_a_chat_past_its_context_window_is_compacted_and_goes_on(local: Cli) -> None:
    # A window so small that the third message's request passes compact_at (0.8) with two earlier
    # file reads in the history: those outputs are compacted, and the chat still answers.
    config = local.workspace / "quorum.toml"
    config.write_text(config.read_text().replace("[agent]\n", "[agent]\ncontext_window = 2000\n"))
    facts = {"a.txt": "The colour is TEAL.", "b.txt": "The animal is OTTER.", "c.txt": "The city is LIMA."}
    for name, fact in facts.items():
        local.write(name, _filler(30) + fact + "\n")
    typed = "".join(
        f"Read the file {name} and tell me the {what}.\n"
        for name, what in (("a.txt", "colour"), ("b.txt", "animal"), ("c.txt", "city"))
    )
    result = _timed(local, "chat", input=typed, runs=3)
    assert result.code == 0, result.stdout[-2000:] + result.stderr

    runs = _runs(local)
    assert [stop for _, stop in runs] == ["end_turn"] * 3, runs
    logged = [local("logs", "show", run_id, "--json").events() for run_id, _ in runs]
    assert "LIMA" in logged[-1][-1]["output"].upper()  # the last message was answered from its file
    compacted = [event for events in logged for event in events if event["type"] == "context_compacted"]
    assert compacted, "no context_compacted event in the run log"
    assert all(e["tokens_after"] < e["tokens_before"] and e["messages_compacted"] > 0 for e in compacted)
    print(f"[real model] compactions: {json.dumps(compacted)}")
