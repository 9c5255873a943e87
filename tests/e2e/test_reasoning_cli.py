"""Reasoning through the CLI against a local Anthropic wire server (the real SDK): the ``reasoning``
event in ``--json``, and the kept thinking blocks sent back by ``--continue`` and by ``approve``."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Cli
from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Thinking, Turn

THOUGHT = 'I should read the notes first. «ünïcode» \\ "q" \t end  '
SIGNATURE = "Sig/+==A1b2C3/+=="
REDACTED = "RedactedData+/=="
KEPT = [
    {"type": "thinking", "thinking": THOUGHT, "signature": SIGNATURE},
    {"type": "redacted_thinking", "data": REDACTED},
]
THOUGHTS = (Thinking(THOUGHT, SIGNATURE), Thinking(signature=REDACTED, redacted=True))


def _configure(cli: Cli, server: ScriptedHttpServer, agent: str = "") -> None:
    cli.write(
        "quorum.toml",
        f'[providers.claude]\ntype = "anthropic"\nbase_url = "{server.url}"\napi_key = "x"\nmax_retries = 0\n{agent}',
    )


def _assistant(body: dict[str, Any], index: int) -> list[dict[str, Any]]:
    message = body["messages"][index]
    assert message["role"] == "assistant"
    return message["content"]


def test_reasoning_is_an_event_and_its_blocks_go_back_in_the_loop_and_after_continue(cli: Cli) -> None:
    server = anthropic_server()
    try:
        _configure(cli, server)
        cli.write("notes.txt", "hello\n")
        read = Call("toolu_1", "read_file", {"path": "notes.txt"})
        server.enqueue(Turn(thinking=THOUGHTS, calls=(read,)), Turn(text="The notes say hello."))

        first = cli("run", "--reasoning", "high", "--model", "claude:claude-test", "--json", "what do the notes say?")

        assert first.code == 0, first.stderr
        events = first.events()
        reasoning = [e for e in events if e["type"] == "reasoning"]
        assert [(e["text"], e["api"], e["wire"]) for e in reasoning] == [
            (THOUGHT, "anthropic", KEPT[0]),
            ("", "anthropic", KEPT[1]),
        ]
        assert events[-1]["output"] == "The notes say hello."  # the reasoning is not the answer
        bodies = server.bodies()
        assert bodies[0]["thinking"] == {"type": "enabled", "budget_tokens": 16384}
        assert _assistant(bodies[1], 1)[:3] == [*KEPT, {**_tool_use(read)}]

        server.enqueue(Turn(text="Nothing more."))
        later = cli("run", "--continue", "--reasoning", "high", "--model", "claude:claude-test", "--json", "more?")

        assert later.code == 0, later.stderr
        resent = server.bodies()[2]
        assert _assistant(resent, 1)[:3] == [*KEPT, _tool_use(read)]
        marked = {"type": "text", "text": "more?", "cache_control": {"type": "ephemeral"}}  # prompt caching's mark
        assert resent["messages"][-1] == {"role": "user", "content": [marked]}
        assert server.unexpected == 0 and server.remaining == 0
    finally:
        server.stop()


def test_an_approval_later_sends_the_thinking_of_the_turn_it_answers(cli: Cli) -> None:
    server = anthropic_server()
    try:
        _configure(cli, server, agent='[agent]\nreasoning = "medium"\n')
        write = Call("toolu_w", "write_file", {"path": "out.txt", "content": "x\n"})
        server.enqueue(Turn(thinking=THOUGHTS, calls=(write,)))

        deferred = cli("run", "--defer", "--model", "claude:claude-test", "--json", "write the file")

        assert deferred.code == 4, deferred.stderr
        run_id = deferred.events()[0]["run_id"]
        server.enqueue(Turn(text="Written."))
        approved = cli("approve", run_id, "--json", "--by", "alice")

        assert approved.code == 0, approved.stderr
        assert (cli.workspace / "out.txt").read_text() == "x\n"
        body = server.bodies()[1]
        assert body["thinking"] == {"type": "enabled", "budget_tokens": 8192}
        assert _assistant(body, 1) == [*KEPT, _tool_use(write)]
        results = body["messages"][2]["content"]
        assert results[0]["type"] == "tool_result" and results[0]["tool_use_id"] == "toolu_w"
    finally:
        server.stop()


def _tool_use(call: Call) -> dict[str, Any]:
    return {"type": "tool_use", "id": call.id, "name": call.name, "input": call.arguments}


def test_chat_asks_for_the_reasoning_its_flag_names(cli: Cli) -> None:
    server = anthropic_server()
    try:
        _configure(cli, server)
        server.enqueue(Turn(thinking=THOUGHTS, text="Hello."))

        chat = cli("chat", "--reasoning", "low", "--model", "claude:claude-test", input="hi\n")

        assert chat.code == 0, chat.stderr
        assert "Hello." in chat.stdout and THOUGHT.strip() not in chat.stdout
        assert server.bodies()[0]["thinking"] == {"type": "enabled", "budget_tokens": 2048}
    finally:
        server.stop()
