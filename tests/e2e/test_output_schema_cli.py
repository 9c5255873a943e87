"""``quorum run --output-schema FILE`` against local wire servers, through the real SDKs.

Chat Completions and the Responses API are asked through their structured output
(``response_format``, ``text.format``); the Messages API through a ``final_answer`` tool whose call
is the answer (decision 260). An answer that does not match is told what is wrong, at most twice
more; stdout holds only the JSON document that matched, and a run whose answer never matches stops
``invalid_output`` (exit 3) with the last answer and the problems in ``detail``.
"""

from __future__ import annotations

import json
from typing import Any

import jsonschema
import pytest

from tests.e2e.conftest import Cli
from tests.e2e.test_provider_cli import _configure as configure_provider
from tests.e2e.test_provider_cli import server as provider_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

SCHEMA = {
    "type": "object",
    "properties": {"title": {"type": "string"}, "count": {"type": "integer", "minimum": 0}},
    "required": ["title", "count"],
    "additionalProperties": False,
}
VALID = {"title": "Release «notes»", "count": 2}


server = provider_server
"""The fixture: a local server of each kind (``openai``, ``responses``, ``anthropic``)."""


def _configure(cli: Cli, kind: str, scripted: ScriptedHttpServer) -> None:
    configure_provider(cli, kind, scripted)  # [providers.local] of that kind, on the server
    cli.write("schema.json", json.dumps(SCHEMA))


def _answer(kind: str, answer: Any, n: int) -> Turn:
    """The model's final answer: text on the OpenAI APIs, a ``final_answer`` call on Anthropic's."""
    if kind == "anthropic":
        return Turn(calls=(Call(f"toolu_{n}", "final_answer", answer),))
    return Turn(text=answer if isinstance(answer, str) else json.dumps(answer))


def _asked_schema(kind: str, body: dict[str, Any]) -> Any:
    if kind == "openai":
        return body["response_format"]["json_schema"]["schema"]
    if kind == "responses":
        return body["text"]["format"]["schema"]
    (final,) = [tool for tool in body["tools"] if tool["name"] == "final_answer"]
    return final["input_schema"]


def _last_user_text(kind: str, body: dict[str, Any]) -> str:
    content = (body["input"] if kind == "responses" else body["messages"])[-1]["content"]
    return content if isinstance(content, str) else " ".join(b.get("text", "") for b in content)


def test_an_invalid_answer_is_told_what_is_wrong_then_stdout_is_the_valid_document(
    cli: Cli, server: tuple[str, ScriptedHttpServer]
) -> None:
    kind, scripted = server
    _configure(cli, kind, scripted)
    wrong = "Here you go: not json" if kind != "anthropic" else {"title": "x", "count": -1}
    scripted.enqueue(_answer(kind, wrong, 1), _answer(kind, VALID, 2))

    result = cli("run", "--model", "local:m", "--output-schema", "schema.json", "--no-human", "sum it up")

    assert result.code == 0, result.stderr
    document = json.loads(result.stdout)  # stdout is exactly the JSON document, nothing else
    jsonschema.validate(document, SCHEMA)
    assert document == VALID
    first, second = scripted.bodies()
    assert _asked_schema(kind, first) == SCHEMA and _asked_schema(kind, second) == SCHEMA
    told = _last_user_text(kind, second)
    assert "does not match the required JSON Schema" in told and "2 more tries" in told
    assert ("not a JSON document" in told) if kind != "anthropic" else ("count: -1 is less than" in told)
    assert scripted.unexpected == 0 and scripted.remaining == 0


def test_an_answer_that_never_matches_stops_invalid_output_with_exit_3(
    cli: Cli, server: tuple[str, ScriptedHttpServer]
) -> None:
    kind, scripted = server
    _configure(cli, kind, scripted)
    scripted.enqueue(*(_answer(kind, {"title": "x"}, n) for n in range(3)))

    result = cli("run", "--model", "local:m", "--output-schema", "schema.json", "--json", "sum it up")

    assert result.code == 3, result.stderr
    finished = result.events()[-1]
    assert finished["type"] == "run_finished" and finished["stop_reason"] == "invalid_output"
    assert finished["stop"]["limit"] == 3
    assert "after 3 tries" in finished["detail"] and "'count' is a required property" in finished["detail"]
    assert 'Last answer: {"title": "x"}' in finished["detail"]
    assert len(scripted.bodies()) == 3 and scripted.remaining == 0


def test_the_json_events_hold_the_document_in_run_finished_output(cli: Cli) -> None:
    scripted = openai_server()
    try:
        _configure(cli, "openai", scripted)
        fenced = "```json\n" + json.dumps(VALID, indent=2) + "\n```"  # a fence around it is forgiven
        scripted.enqueue(Turn(text=fenced))
        result = cli("run", "--model", "local:m", "--output-schema", "schema.json", "--json", "sum it up")
        assert result.code == 0, result.stderr
        finished = result.events()[-1]
        assert finished["stop_reason"] == "end_turn" and json.loads(finished["output"]) == VALID
    finally:
        scripted.stop()


@pytest.mark.parametrize(
    ("content", "problem"),
    [
        ("{not json", "not JSON"),
        ('{"type": "object", "properties": {"a": {"type": "strin"}}}', "not a valid JSON Schema"),
        ('{"type": 12}', "not a valid JSON Schema"),
        ("[1, 2]", "a JSON Schema is a JSON object"),
    ],
)
def test_a_bad_schema_file_is_a_usage_error_before_any_request(cli: Cli, content: str, problem: str) -> None:
    cli.write("bad.json", content)
    result = cli("run", "--model", "scripted:none.json", "--output-schema", "bad.json", "go")
    assert result.code == 2, result.stderr
    assert problem in result.stderr and "--output-schema" in result.stderr
    assert "Traceback" not in result.stderr


def test_a_missing_schema_file_is_a_usage_error(cli: Cli) -> None:
    result = cli("run", "--model", "scripted:none.json", "--output-schema", "absent.json", "go")
    assert result.code == 2 and "absent.json" in result.stderr and "Traceback" not in result.stderr
