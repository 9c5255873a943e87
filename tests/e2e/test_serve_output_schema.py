"""``POST /v1/runs`` with ``output_schema`` on ``quorum serve``, the model the real OpenAI SDK's local wire server.

The schema reaches the model as structured output, an invalid answer is told what is wrong, and
``run_finished.output`` holds the JSON document that matched; a schema that is not one is a 400
before any run starts.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Turn

pytest.importorskip("starlette")

SCHEMA = {"type": "object", "properties": {"ok": {"type": "boolean"}}, "required": ["ok"]}


@pytest.fixture
def wire(openai_wire: ScriptedHttpServer) -> ScriptedHttpServer:
    return openai_wire


@pytest.fixture
def server(cli: Cli, wire: ScriptedHttpServer) -> Iterator[Server]:
    cli.write(
        "quorum.toml",
        f'[providers.local]\ntype = "openai"\nbase_url = "{wire.url}/v1"\napi_key = "x"\nmax_retries = 0\n',
    )
    running = Server(cli)
    yield running
    if running.proc.poll() is None:
        running.kill()


def test_a_run_with_an_output_schema_ends_with_the_checked_document(server: Server, wire: ScriptedHttpServer) -> None:
    wire.enqueue(Turn(text="yes"), Turn(text='{"ok": true}'))
    run_id = server.start("is it fine?", "local:m", output_schema=SCHEMA)
    events = list(server.events(run_id))
    finished = events[-1].data
    assert (finished["stop_reason"], json.loads(finished["output"])) == ("end_turn", {"ok": True})
    first, second = wire.bodies()
    assert first["response_format"]["json_schema"]["schema"] == SCHEMA
    assert "does not match the required JSON Schema" in second["messages"][-1]["content"]


@pytest.mark.parametrize("schema", [{"type": "nonsense"}, {"properties": {"a": {"minimum": "x"}}}, "a string", 3])
def test_a_schema_that_is_not_one_is_a_400_and_no_run(server: Server, wire: ScriptedHttpServer, schema: object) -> None:
    answer = server.http.post("/v1/runs", json={"task": "x", "model": "local:m", "output_schema": schema})
    assert answer.status_code == 400, answer.text
    assert "output_schema" in answer.json()["error"]["message"]
    assert server.runs() == [] and wire.bodies() == []


def test_a_run_continued_after_an_approval_still_checks_its_answer(
    cli: Cli, server: Server, wire: ScriptedHttpServer
) -> None:
    write = Call("w1", "write_file", {"path": "one.txt", "content": "one\n"})
    wire.enqueue(Turn(calls=(write,)), Turn(text="written"), Turn(text='{"ok": true}'))
    run_id = server.start("write one file", "local:m", output_schema=SCHEMA)
    server.until_waiting(run_id)
    decided = server.decide(run_id, "w1", approve=True)
    assert decided.status_code == 200, decided.text
    events = list(server.events(run_id))
    finished = events[-1].data
    assert (finished["stop_reason"], json.loads(finished["output"])) == ("end_turn", {"ok": True})
    assert (cli.workspace / "one.txt").read_text() == "one\n"
    bodies = wire.bodies()
    assert len(bodies) == 3 and all(b["response_format"]["json_schema"]["schema"] == SCHEMA for b in bodies)
    assert "does not match the required JSON Schema" in bodies[2]["messages"][-1]["content"]
