from __future__ import annotations

import jsonschema
import pytest

from quorum.application.ports.tool_schema import ToolSchemaPort
from quorum.domain.tools import RiskLevel, ToolDefinition, ToolParameter, ToolSpec
from quorum.infrastructure.tools.schema import JsonSchemaToolConverter

CONVERTER: ToolSchemaPort = JsonSchemaToolConverter()


def tool(*params: ToolParameter, name: str = "t", risk: RiskLevel = RiskLevel.HIGH) -> ToolDefinition:
    return ToolDefinition(name=name, description="does t", risk=risk, parameters=params)


@pytest.mark.parametrize(
    ("param_type", "json_type"),
    [
        ("string", "string"),
        ("path", "string"),
        ("number", "number"),
        ("integer", "integer"),
        ("boolean", "boolean"),
        ("array", "array"),
        ("object", "object"),
    ],
)
def test_each_param_type_maps_to_its_json_type(param_type: str, json_type: str) -> None:
    schema = CONVERTER.tool_to_schema(tool(ToolParameter(name="x", param_type=param_type)))  # type: ignore[arg-type]
    assert schema["input_schema"]["properties"]["x"]["type"] == json_type


def test_shape_required_enum_default_and_closed_object() -> None:
    schema = CONVERTER.tool_to_schema(
        tool(
            ToolParameter(name="path", description="file to read", param_type="path"),
            ToolParameter(name="mode", enum=("a", "b"), required=False, default="a"),
            ToolParameter(name="limit", param_type="integer", required=False),
        )
    )
    assert schema["name"] == "t"
    assert schema["description"] == "does t"
    body = schema["input_schema"]
    assert body["type"] == "object"
    assert body["required"] == ["path"]
    assert body["additionalProperties"] is False
    assert body["properties"]["mode"] == {"type": "string", "enum": ["a", "b"], "default": "a"}
    assert "file to read" in body["properties"]["path"]["description"]
    assert "default" not in body["properties"]["limit"]


def test_generated_schema_is_valid_and_enforces_the_parameters() -> None:
    body = CONVERTER.tool_to_schema(
        tool(
            ToolParameter(name="n", param_type="integer"),
            ToolParameter(name="e", enum=("x",), required=False),
        )
    )["input_schema"]
    jsonschema.Draft202012Validator.check_schema(body)
    validator = jsonschema.Draft202012Validator(body)
    assert validator.is_valid({"n": 1, "e": "x"})
    assert not validator.is_valid({"n": "1"})
    assert not validator.is_valid({"e": "x"})
    assert not validator.is_valid({"n": 1, "e": "y"})
    assert not validator.is_valid({"n": 1, "extra": True})


def test_raw_input_schema_is_passed_through_unchanged_and_copied() -> None:
    raw = {"type": "object", "properties": {"tz": {"type": "string"}}, "required": ["tz"]}
    definition = ToolDefinition(name="mcp__time__now", input_schema=raw)
    out = CONVERTER.tool_to_schema(definition)
    assert out["input_schema"] == raw
    out["input_schema"]["properties"]["tz"]["type"] = "number"
    assert raw["properties"]["tz"]["type"] == "string"


def test_raw_schema_without_type_gets_object() -> None:
    out = CONVERTER.tool_to_schema(ToolDefinition(name="x", input_schema={"properties": {}}))
    assert out["input_schema"]["type"] == "object"


def test_no_parameters_gives_an_empty_object_schema() -> None:
    body = CONVERTER.tool_to_schema(tool())["input_schema"]
    assert body == {"type": "object", "properties": {}, "required": [], "additionalProperties": False}


def test_all_and_low_risk_schemas_follow_the_spec_order() -> None:
    spec = ToolSpec(
        [
            tool(name="w", risk=RiskLevel.HIGH),
            tool(name="r1", risk=RiskLevel.LOW),
            tool(name="r2", risk=RiskLevel.LOW),
        ]
    )
    assert [s["name"] for s in CONVERTER.all_tools_schema(spec)] == ["w", "r1", "r2"]
    assert [s["name"] for s in CONVERTER.low_risk_tools_schema(spec)] == ["r1", "r2"]


def test_a_parameter_with_an_unknown_field_is_refused() -> None:
    # `type=` instead of `param_type=` used to be dropped silently, offering a string parameter.
    with pytest.raises(ValueError, match="type"):
        ToolParameter(name="n", type="integer")  # type: ignore[call-arg]
