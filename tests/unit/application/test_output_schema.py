"""A checked final answer (issue 37): the check itself, and the loop telling, retrying and stopping."""

from __future__ import annotations

import json
from typing import Any

import pytest

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.output_schema import ANSWER_TRIES, AnswerSchema, schema_problem
from tests.fakes import calls, text
from tests.unit.application.conftest import Harness

SCHEMA = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}


@pytest.mark.parametrize(
    ("answer", "value"),
    [
        ('{"n": 1}', {"n": 1}),
        ('  {"n": 1}\n', {"n": 1}),
        ('```json\n{"n": 1}\n```', {"n": 1}),
        ('```\n{"n": 1}\n```', {"n": 1}),
    ],
)
def test_a_matching_answer_is_its_value_as_compact_json(answer: str, value: Any) -> None:
    checked = AnswerSchema(SCHEMA).check(answer)
    assert checked.valid and checked.value == value and checked.document == json.dumps(value)


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        ("n is 1", "the answer is not a JSON document"),
        ('{"n": "1"}', "n: '1' is not of type 'integer'"),
        ("{}", "(root): 'n' is a required property"),
        ('Here: {"n": 1}', "the answer is not a JSON document"),
        ("[" * 100 + "]" * 100, "nested more than 64 levels"),
        ("[" * 100_000 + "]" * 100_000, "nested"),
    ],
)
def test_an_answer_that_does_not_match_says_what_is_wrong(answer: str, problem: str) -> None:
    checked = AnswerSchema(SCHEMA).check(answer)
    assert not checked.valid and problem in checked.problems[0]


def test_problems_are_capped_and_counted() -> None:
    schema = {"type": "object", "properties": {k: {"type": "integer"} for k in "abcdefg"}}
    checked = AnswerSchema(schema).check(json.dumps({k: "x" for k in "abcdefg"}))
    assert len(checked.problems) == 6 and checked.problems[-1] == "and 2 more problem(s)"


def test_a_root_that_is_not_an_object_is_asked_wrapped_and_accepted_either_way() -> None:
    answer = AnswerSchema({"type": "array", "items": {"type": "integer"}})
    assert answer.asked == {
        "type": "object",
        "properties": {"answer": {"type": "array", "items": {"type": "integer"}}},
        "required": ["answer"],
    }
    assert answer.check('{"answer": [1, 2]}').value == [1, 2]
    assert answer.check("[3]").value == [3]
    assert not answer.check('{"answer": ["x"]}').valid


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ({"type": "nonsense"}, "not a valid JSON Schema"),
        ({"properties": {"a": {"minimum": "x"}}}, "not a valid JSON Schema"),
        ([1], "a JSON Schema is a JSON object, not list"),
        ("{}", "not str"),
    ],
)
def test_a_schema_that_is_not_one_is_named(schema: Any, problem: str) -> None:
    found = schema_problem(schema)
    assert found is not None and problem in found


def test_a_valid_schema_has_no_problem() -> None:
    assert schema_problem(SCHEMA) is None and schema_problem({}) is None


async def _run(h: Harness, **params: Any) -> Any:
    request = RunRequest(task="count", model_id="fake:model", params=ExecutionParams(**params), output_schema=SCHEMA)
    agent = h.agent()
    h.gateway = agent._deps.gateway  # type: ignore[attr-defined]
    return await agent.execute(request)


async def test_every_request_asks_for_the_schema_and_the_prompt_says_it(h: Harness) -> None:
    h.tools.add("read", lambda args: "three lines")
    h.session.script = [calls(("read", {"path": "a"})), text('{"n": 3}')]
    result = await _run(h)
    assert (result.stop_reason, result.output) == ("end_turn", '{"n": 3}')
    assert [turn.answer_schema for turn in h.session.turns] == [SCHEMA, SCHEMA]
    ((_, prompt),) = h.gateway.opened  # type: ignore[attr-defined]
    assert prompt is not None and prompt.endswith(json.dumps(SCHEMA)) and "only a JSON document" in prompt


async def test_an_invalid_answer_gets_what_is_wrong_then_two_more_tries_then_invalid_output(h: Harness) -> None:
    h.session.script = [text("three"), text('{"n": "3"}'), text("{}")]
    result = await _run(h)
    assert result.stop_reason == "invalid_output" and result.turns == ANSWER_TRIES
    told = [turn.text for turn in h.session.turns[1:]]
    assert "not a JSON document" in told[0] and "(2 more tries)" in told[0]
    assert "n: '3' is not of type 'integer'" in told[1] and "(1 more try)" in told[1]
    assert result.detail is not None
    assert "after 3 tries" in result.detail and result.detail.endswith("Last answer: {}")
    assert result.output == "{}"  # the last answer, as the model gave it
    finished = h.observer.events[-1]
    assert finished.stop is not None and finished.stop.limit == ANSWER_TRIES


async def test_without_a_schema_nothing_is_asked_or_checked(h: Harness) -> None:
    h.session.script = [text("three")]
    result = await h.run()
    assert (result.stop_reason, result.output) == ("end_turn", "three")
    assert h.session.turns[0].answer_schema is None
