"""``Agent.run(output_schema=…)`` through the real OpenAI SDK against the local wire server.

A dict schema returns the parsed JSON, a pydantic model class an instance of it; an answer that
never matches ends ``invalid_output`` with ``output`` None; a schema that is not one is refused
before any request.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel, Field

from quorum import Agent
from quorum.domain.errors import UsageError
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Turn


class Summary(BaseModel):
    title: str
    count: int = Field(ge=0)
    tags: list[str] = []


def local(openai_wire: ScriptedHttpServer) -> dict[str, dict[str, Any]]:
    return {"local": {"type": "openai", "base_url": f"{openai_wire.url}/v1", "api_key": "x", "max_retries": 0}}


async def test_a_dict_schema_returns_the_parsed_json_after_one_more_try(openai_wire: ScriptedHttpServer) -> None:
    schema = {"type": "object", "properties": {"n": {"type": "integer"}}, "required": ["n"]}
    openai_wire.enqueue(Turn(text='{"n": "three"}'), Turn(text='{"n": 3}'))
    async with Agent("local:m", providers=local(openai_wire)) as agent:
        result = await agent.run("count", output_schema=schema)
    assert (result.stop_reason, result.output) == ("end_turn", {"n": 3})
    first, second = openai_wire.bodies()
    assert first["response_format"]["json_schema"]["schema"] == schema
    assert "n: 'three' is not of type 'integer'" in second["messages"][-1]["content"]
    assert result.events[-1].output == '{"n": 3}'  # run_finished holds the document


async def test_a_pydantic_class_returns_an_instance(openai_wire: ScriptedHttpServer) -> None:
    openai_wire.enqueue(Turn(text=json.dumps({"title": "notes", "count": 2, "tags": ["a"]})))
    async with Agent("local:m", providers=local(openai_wire)) as agent:
        result = await agent.run("sum up", output_schema=Summary)
    assert result.stop_reason == "end_turn"
    assert result.output == Summary(title="notes", count=2, tags=["a"])
    (body,) = openai_wire.bodies()
    assert body["response_format"]["json_schema"]["schema"] == Summary.model_json_schema()


async def test_a_root_that_is_not_an_object_is_asked_wrapped_and_returned_bare(openai_wire: ScriptedHttpServer) -> None:
    schema = {"type": "array", "items": {"type": "string"}}
    openai_wire.enqueue(Turn(text='{"answer": ["a", "b"]}'))
    async with Agent("local:m", providers=local(openai_wire)) as agent:
        result = await agent.run("list", output_schema=schema)
    assert result.output == ["a", "b"]
    (body,) = openai_wire.bodies()
    assert body["response_format"]["json_schema"]["schema"]["properties"]["answer"] == schema


async def test_an_answer_that_never_matches_is_invalid_output_with_no_value(openai_wire: ScriptedHttpServer) -> None:
    openai_wire.enqueue(*(Turn(text='{"title": "x"}') for _ in range(3)))
    async with Agent("local:m", providers=local(openai_wire)) as agent:
        result = await agent.run("sum up", output_schema=Summary)
    assert (result.stop_reason, result.output) == ("invalid_output", None)
    assert result.detail is not None and "'count' is a required property" in result.detail
    assert openai_wire.remaining == 0


async def test_a_schema_that_is_not_one_is_refused_before_any_request(openai_wire: ScriptedHttpServer) -> None:
    async with Agent("local:m", providers=local(openai_wire)) as agent:
        with pytest.raises(UsageError, match="not a valid JSON Schema"):
            await agent.run("x", output_schema={"type": "nonsense"})
        with pytest.raises(TypeError, match="output_schema must be"):
            await agent.run("x", output_schema="{}")  # type: ignore[arg-type]
    assert openai_wire.bodies() == []


async def test_anthropic_gets_a_final_answer_tool_forced_when_it_is_the_only_tool() -> None:
    from tests.support.anthropic_server import anthropic_server
    from tests.support.script import Call

    server = anthropic_server()
    try:
        server.enqueue(Turn(calls=(Call("toolu_1", "final_answer", {"title": "notes", "count": 1}),)))
        providers = {"claude": {"type": "anthropic", "base_url": server.url, "api_key": "x", "max_retries": 0}}
        async with Agent("claude:c", providers=providers) as agent:
            result = await agent.run("sum up", output_schema=Summary)
        assert result.output == Summary(title="notes", count=1)
        (body,) = server.bodies()
        assert [t["name"] for t in body["tools"]] == ["final_answer"]
        assert body["tools"][0]["input_schema"] == Summary.model_json_schema()
        assert body["tool_choice"] == {"type": "tool", "name": "final_answer"}
    finally:
        server.stop()
