from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from quorum.domain import (
    LlmResponse,
    ModelId,
    RiskLevel,
    RunFinished,
    StopReason,
    TextBlock,
    ToolCall,
    ToolDefinition,
    ToolParameter,
    ToolResult,
    ToolSpec,
    Usage,
    UsageError,
)


def tool(name: str, risk: RiskLevel = RiskLevel.LOW) -> ToolDefinition:
    return ToolDefinition(name=name, risk=risk)


def test_tool_spec_filters_by_risk_and_keeps_order() -> None:
    spec = ToolSpec([tool("a"), tool("b", RiskLevel.HIGH), tool("c")])
    assert [t.name for t in spec.all()] == ["a", "b", "c"]
    assert [t.name for t in spec.low_risk_tools()] == ["a", "c"]
    assert [t.name for t in spec.high_risk_tools()] == ["b"]
    assert spec.get("b") is not None and spec.get("zz") is None


def test_tool_spec_rejects_duplicate_names() -> None:
    with pytest.raises(UsageError, match="duplicate tool name 'a'"):
        ToolSpec([tool("a"), tool("a", RiskLevel.HIGH)])


def test_tool_definition_has_parameters_or_a_schema_not_both() -> None:
    with pytest.raises(ValidationError):
        ToolDefinition(name="x", parameters=(ToolParameter(name="p"),), input_schema={"type": "object"})


def test_tool_names_are_wire_safe() -> None:
    with pytest.raises(ValidationError):
        ToolDefinition(name="has space")
    with pytest.raises(ValidationError):
        ToolDefinition(name="x" * 65)


def test_response_accessors() -> None:
    r = LlmResponse(
        content=(TextBlock(text="a"), ToolCall(native_id="1", name="t", arguments={"k": 1}), TextBlock(text="b")),
        stop_reason=StopReason.tool_use(),
    )
    assert r.text_content() == "ab"
    assert r.has_tool_calls()
    (call,) = r.tool_calls()
    assert (call.native_id, call.name, dict(call.arguments)) == ("1", "t", {"k": 1})
    assert not LlmResponse.from_text("x").has_tool_calls()


def test_malformed_arguments_stay_flagged_on_the_call() -> None:
    response = LlmResponse(
        content=(ToolCall(native_id="1", name="t", arguments_error="Expecting value", raw_arguments="{x"),)
    )
    (call,) = response.tool_calls()
    assert call.arguments_error == "Expecting value" and call.raw_arguments == "{x"


def test_payloads_of_the_earlier_shapes_still_load() -> None:
    """Workflow histories of runs in flight hold calls and results under their earlier names."""
    block = {"type": "tool_use", "id": "c1", "name": "t", "input": {"k": 1}, "input_error": None, "raw_input": None}
    assert LlmResponse.model_validate({"content": [block]}).tool_calls() == [
        ToolCall(native_id="c1", name="t", arguments={"k": 1})
    ]
    message = ToolResult.model_validate({"tool_use_id": "c1", "tool_name": "t", "output": "ok", "is_rejected": True})
    assert (message.call_id, message.name, message.output, message.is_rejected) == ("c1", "t", "ok", True)
    outcome = ToolResult.model_validate({"output": "done", "is_error": False, "images": []})
    assert (outcome.call_id, outcome.output) == ("", "done")
    history_block = ToolResult.model_validate({"type": "tool_result", "tool_use_id": "c1", "content": "x"})
    assert (history_block.call_id, history_block.output) == ("c1", "x")


def test_stop_reason_other_keeps_raw() -> None:
    assert StopReason.other("content_filter").raw == "content_filter"
    assert StopReason.end_turn() == StopReason(kind="end_turn")


def test_usage_adds() -> None:
    total = Usage(input_tokens=1, output_tokens=2) + Usage(input_tokens=10, output_tokens=20)
    assert (total.input_tokens, total.output_tokens, total.total_tokens) == (11, 22, 33)


def test_usage_adds_its_cache_parts_which_are_part_of_the_input() -> None:
    first = Usage(input_tokens=100, output_tokens=2, cache_read_input_tokens=60, cache_write_input_tokens=30)
    total = first + Usage(input_tokens=50, output_tokens=1, cache_read_input_tokens=40)

    assert (total.input_tokens, total.cache_read_input_tokens, total.cache_write_input_tokens) == (150, 100, 30)
    assert total.uncached_input_tokens == 20
    assert total.total_tokens == 153


def test_model_id_parse() -> None:
    assert ModelId.parse("openai:gpt-4.1-mini") == ModelId(provider="openai", model="gpt-4.1-mini")
    assert ModelId.parse("scripted:examples/demo.toml").model == "examples/demo.toml"
    assert str(ModelId.parse("test")) == "test"
    with pytest.raises(UsageError):
        ModelId.parse(":x")


def test_run_finished_json_matches_contract() -> None:
    event = RunFinished(stop_reason="end_turn", turns=2, output="hi", usage=Usage(input_tokens=3, output_tokens=4))
    data = json.loads(event.model_dump_json())
    assert data == {
        "type": "run_finished",
        "stop_reason": "end_turn",
        "turns": 2,
        "output": "hi",
        "usage": {
            "input_tokens": 3,
            "output_tokens": 4,
            "cache_read_input_tokens": 0,
            "cache_write_input_tokens": 0,
            "reviewer_input_tokens": 0,
            "reviewer_output_tokens": 0,
        },
        "detail": None,
        "cost": None,
    }
