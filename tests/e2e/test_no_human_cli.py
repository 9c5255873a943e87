"""``quorum run --no-human``: nobody is asked, whatever stdin is; the reviewer panel alone decides.

The agent and the reviewer are models on local OpenAI wire servers (the real SDK over HTTP). With
no panel, a write that would ask a person is rejected at once, both with stdin a pipe holding "y"
and with a real pseudo-terminal as stdin (no question is ever printed); with an approving panel
it is written.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.test_review_cli import Terminal
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

WRITE = Call("c1", "write_file", {"path": "out.txt", "content": "written\n"})


@pytest.fixture
def agent(openai_wire: ScriptedHttpServer) -> ScriptedHttpServer:
    return openai_wire


@pytest.fixture
def reviewer() -> Iterator[ScriptedHttpServer]:
    server = openai_server()
    try:
        yield server
    finally:
        server.stop()


def _configure(cli: Cli, agent: ScriptedHttpServer, reviewer: ScriptedHttpServer | None = None) -> None:
    def provider(name: str, server: ScriptedHttpServer) -> str:
        return f'[providers.{name}]\ntype = "openai"\nbase_url = "{server.url}/v1"\napi_key = "x"\nmax_retries = 0\n'

    config = provider("local", agent)
    if reviewer is not None:
        config += provider("panel", reviewer) + '[review]\nreviewers = ["panel:judge"]\n'
    cli.write("quorum.toml", config)


def _tool_result(body: dict[str, object]) -> str:
    messages = body["messages"]
    assert isinstance(messages, list)
    (result,) = [m["content"] for m in messages if m["role"] == "tool"]
    return str(result)


def test_with_no_panel_a_write_is_rejected_at_once_though_stdin_says_yes(cli: Cli, agent: ScriptedHttpServer) -> None:
    _configure(cli, agent)
    agent.enqueue(Turn(calls=(WRITE,)), Turn(text="I could not write it."))

    result = cli("run", "--model", "local:m", "--no-human", "--json", "write it", input="y\ny\n")

    assert result.code == 0, result.stderr
    (review,) = [e for e in result.events() if e["type"] == "review"]
    assert (review["approved"], review["decided_by"]) == (False, "auto")
    assert review["reason"].startswith("auto-rejected (")
    assert not (cli.workspace / "out.txt").exists()
    assert "Rejected by review (auto)" in _tool_result(agent.bodies()[1])  # the model is told
    assert "review needed" not in result.stderr


def test_with_no_panel_a_real_terminal_is_never_asked(cli: Cli, agent: ScriptedHttpServer) -> None:
    _configure(cli, agent)
    agent.enqueue(Turn(calls=(WRITE,)), Turn(text="I could not write it."))

    terminal = Terminal(cli, "run", "--model", "local:m", "--no-human", "--no-log", "write it")
    code, stdout, stderr = terminal.finish()  # nothing is typed: a question would hang it

    assert code == 0, stderr
    assert "review needed" not in stderr and "[y]es / [n]o" not in stderr
    assert "rejected" in stderr and "I could not write it." in stdout
    assert not (cli.workspace / "out.txt").exists()


def test_an_approving_panel_decides_alone_and_the_file_is_written(
    cli: Cli, agent: ScriptedHttpServer, reviewer: ScriptedHttpServer
) -> None:
    _configure(cli, agent, reviewer)
    agent.enqueue(Turn(calls=(WRITE,)), Turn(text="Written."))
    verdict = Call("v1", "submit_verdict", {"verdict": "approve", "reason": "a small new file"})
    reviewer.enqueue(Turn(calls=(verdict,)))

    result = cli("run", "--model", "local:m", "--no-human", "--json", "write it")

    assert result.code == 0, result.stderr
    (review,) = [e for e in result.events() if e["type"] == "review"]
    assert (review["approved"], review["decided_by"]) == (True, "quorum")
    assert (cli.workspace / "out.txt").read_text() == "written\n"
    (asked,) = reviewer.bodies()
    assert [t["function"]["name"] for t in asked["tools"]] == ["submit_verdict"]


def test_a_rejecting_panel_is_not_escalated_to_anyone(
    cli: Cli, agent: ScriptedHttpServer, reviewer: ScriptedHttpServer
) -> None:
    _configure(cli, agent, reviewer)
    cli.write("quorum.toml", (cli.workspace / "quorum.toml").read_text() + "escalate_on_reject = true\n")
    agent.enqueue(Turn(calls=(WRITE,)), Turn(text="Not written."))
    reviewer.enqueue(Turn(calls=(Call("v1", "submit_verdict", {"verdict": "reject", "reason": "no"}),)))

    result = cli("run", "--model", "local:m", "--no-human", "--json", "write it", input="y\n")

    assert result.code == 0, result.stderr
    (review,) = [e for e in result.events() if e["type"] == "review"]
    assert review["approved"] is False and review["reason"].startswith("auto-rejected (")
    assert not (cli.workspace / "out.txt").exists()


@pytest.mark.parametrize("other", ["--yes", "--defer"])
def test_no_human_with_yes_or_defer_is_a_usage_error(cli: Cli, other: str) -> None:
    result = cli("run", "--model", "scripted:none.json", "--no-human", other, "go")
    assert result.code == 2 and "not several" in result.stderr
