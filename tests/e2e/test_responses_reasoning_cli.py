"""Reasoning on the Responses API through the CLI (the real openai SDK, a local server): the encrypted
reasoning items go back unchanged in the loop, after ``run --continue`` and after an approval later."""

from __future__ import annotations

from typing import Any

from tests.e2e.conftest import Cli
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Thinking, Turn

THOUGHT = Thinking("Read the notes first.", "gAAAAB-enc-1/+==")
ITEM = {
    "type": "reasoning",
    "id": "rs_0",
    "summary": [{"type": "summary_text", "text": THOUGHT.text}],
    "encrypted_content": THOUGHT.signature,
}


def _configure(cli: Cli, server: ScriptedHttpServer, agent: str = "") -> None:
    cli.write(
        "quorum.toml",
        f'[providers.oai]\ntype = "openai"\napi = "responses"\nbase_url = "{server.url}/v1"\napi_key = "x"\n'
        f"max_retries = 0\n{agent}",
    )


def _items(body: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [item for item in body["input"] if item.get("type") == kind]


def test_reasoning_items_go_back_in_the_loop_and_after_continue(cli: Cli) -> None:
    server = openai_server()
    try:
        _configure(cli, server)
        cli.write("notes.txt", "hello\n")
        read = Call("call_1", "read_file", {"path": "notes.txt"})
        server.enqueue(Turn(thinking=(THOUGHT,), calls=(read,)), Turn(text="The notes say hello."))

        first = cli("run", "--reasoning", "high", "--model", "oai:o-test", "--json", "what do the notes say?")

        assert first.code == 0, first.stderr
        events = first.events()
        assert [(e["text"], e["api"], e["wire"]) for e in events if e["type"] == "reasoning"] == [
            (THOUGHT.text, "openai-responses", ITEM)
        ]
        assert events[-1]["output"] == "The notes say hello."
        bodies = server.bodies()
        assert bodies[0]["reasoning"] == {"effort": "high"} and bodies[0]["store"] is False
        assert bodies[0]["include"] == ["reasoning.encrypted_content"]
        assert bodies[1]["input"][1] == ITEM and bodies[1]["input"][2]["type"] == "function_call"

        server.enqueue(Turn(text="Nothing more."))
        later = cli("run", "--continue", "--reasoning", "high", "--model", "oai:o-test", "--json", "more?")

        assert later.code == 0, later.stderr
        assert _items(server.bodies()[2], "reasoning") == [ITEM]
        assert server.unexpected == 0 and server.remaining == 0
    finally:
        server.stop()


def test_an_approval_later_sends_the_reasoning_of_the_turn_it_answers(cli: Cli) -> None:
    server = openai_server()
    try:
        _configure(cli, server, agent='[agent]\nreasoning = "medium"\n')
        write = Call("call_w", "write_file", {"path": "out.txt", "content": "x\n"})
        server.enqueue(Turn(thinking=(THOUGHT,), calls=(write,)))

        deferred = cli("run", "--defer", "--model", "oai:o-test", "--json", "write the file")

        assert deferred.code == 4, deferred.stderr
        run_id = deferred.events()[0]["run_id"]
        server.enqueue(Turn(text="Written."))
        approved = cli("approve", run_id, "--json")

        assert approved.code == 0, approved.stderr
        assert (cli.workspace / "out.txt").read_text() == "x\n"
        resent = server.bodies()[1]
        assert _items(resent, "reasoning") == [ITEM]
        assert [i["call_id"] for i in _items(resent, "function_call_output")] == ["call_w"]
    finally:
        server.stop()
