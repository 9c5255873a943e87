"""A function's signature as a JSON Schema: the table of annotations, and what is refused."""

from __future__ import annotations

import datetime
import inspect
from collections.abc import Callable
from enum import Enum
from pathlib import Path
from typing import Annotated, Any, Literal, Optional

import jsonschema
import pytest
from pydantic import BaseModel, Field

from quorum.domain.errors import InvalidArgumentsError
from quorum.infrastructure.tools.functions.signature_schema import inline_refs, read_signature
from quorum.infrastructure.tools.functions.tool_context import ToolContext

EMPTY = inspect.Parameter.empty


class Unit(Enum):
    C = "c"
    F = "f"


class Address(BaseModel):
    street: str
    zip: int | None = None


class Node(BaseModel):
    children: list[Node] = []


ADDRESS = {
    "type": "object",
    "title": "Address",
    "properties": {
        "street": {"type": "string"},
        "zip": {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None},
    },
    "required": ["street"],
}


def one_parameter(annotation: Any, default: Any = EMPTY) -> Callable[..., None]:
    """A function ``f(x: annotation = default)``, built so the table can hold any annotation."""

    def f(x):  # type: ignore[no-untyped-def]  # annotated below
        return None

    parameter = inspect.Parameter("x", inspect.Parameter.POSITIONAL_OR_KEYWORD, annotation=annotation, default=default)
    f.__signature__ = inspect.Signature([parameter])  # type: ignore[attr-defined]
    f.__annotations__ = {"x": annotation}
    return f


@pytest.mark.parametrize(
    ("annotation", "default", "expected"),
    [
        (str, EMPTY, {"type": "string"}),
        (int, EMPTY, {"type": "integer"}),
        (float, EMPTY, {"type": "number"}),
        (bool, EMPTY, {"type": "boolean"}),
        (int, 3, {"type": "integer", "default": 3}),
        (float, 0.5, {"type": "number", "default": 0.5}),
        (Literal["c", "f"], "c", {"enum": ["c", "f"], "type": "string", "default": "c"}),
        (Literal[1, 2], EMPTY, {"enum": [1, 2], "type": "integer"}),
        (Unit, EMPTY, {"enum": ["c", "f"], "title": "Unit", "type": "string"}),
        (Unit, Unit.F, {"enum": ["c", "f"], "title": "Unit", "type": "string", "default": "f"}),
        (
            Annotated[int, Field(ge=1, le=10, description="Days ahead.")],
            EMPTY,
            {"type": "integer", "minimum": 1, "maximum": 10, "description": "Days ahead."},
        ),
        (Annotated[str, Field(pattern=r"^\d+$")], EMPTY, {"type": "string", "pattern": r"^\d+$"}),
        (Optional[int], None, {"anyOf": [{"type": "integer"}, {"type": "null"}], "default": None}),  # noqa: UP045
        (int | None, EMPTY, {"anyOf": [{"type": "integer"}, {"type": "null"}]}),
        (list[str], EMPTY, {"type": "array", "items": {"type": "string"}}),
        (dict[str, int], EMPTY, {"type": "object", "additionalProperties": {"type": "integer"}}),
        (Address, EMPTY, ADDRESS),
        (list[Address], EMPTY, {"type": "array", "items": ADDRESS}),
        (Address | None, None, {"anyOf": [ADDRESS, {"type": "null"}], "default": None}),
        (datetime.datetime, EMPTY, {"type": "string", "format": "date-time"}),
        (datetime.date, EMPTY, {"type": "string", "format": "date"}),
        (Path, EMPTY, {"type": "string", "format": "path"}),
        (
            tuple[int, int],
            EMPTY,
            {"type": "array", "prefixItems": [{"type": "integer"}] * 2, "minItems": 2, "maxItems": 2},
        ),
        (Any, EMPTY, {}),
    ],
)
def test_each_annotation_becomes_its_json_schema(annotation: Any, default: Any, expected: dict[str, Any]) -> None:
    schema = read_signature(one_parameter(annotation, default), {}).input_schema
    assert schema == {
        "type": "object",
        "properties": {"x": expected},
        **({"required": ["x"]} if default is EMPTY else {}),
        "additionalProperties": False,
    }
    jsonschema.Draft202012Validator.check_schema(schema)


def test_a_whole_signature_with_descriptions_and_a_context() -> None:
    def weather(
        city: str,
        context: ToolContext,
        unit: Literal["c", "f"] = "c",
        days: Annotated[int, Field(ge=1, description="Explicit wins.")] = 1,
    ) -> str:
        return city

    schema = read_signature(weather, {"city": "City name.", "unit": "Temperature unit.", "days": "Docstring."})
    assert schema.context_parameter == "context"
    assert schema.input_schema == {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "City name."},
            "unit": {"enum": ["c", "f"], "type": "string", "default": "c", "description": "Temperature unit."},
            "days": {"type": "integer", "minimum": 1, "default": 1, "description": "Explicit wins."},
        },
        "required": ["city"],
        "additionalProperties": False,
    }


def test_no_parameters_is_an_empty_object_every_provider_accepts() -> None:
    def ping() -> str:
        return "pong"

    assert read_signature(ping, {}).input_schema == {"type": "object", "properties": {}, "additionalProperties": False}


def test_parameter_names_that_a_pydantic_model_would_refuse_are_fine() -> None:
    def f(json: str, schema: int, model_config: bool, _private: str = "") -> None:
        return None

    signature = read_signature(f, {})
    assert list(signature.input_schema["properties"]) == ["json", "schema", "model_config", "_private"]
    assert signature.bind({"json": "j", "schema": 1, "model_config": True, "_private": "p"}, CONTEXT) == {
        "json": "j",
        "schema": 1,
        "model_config": True,
        "_private": "p",
    }


def test_a_recursive_model_keeps_its_definition_at_the_root() -> None:
    schema = read_signature(one_parameter(Node), {}).input_schema
    node = {
        "type": "object",
        "title": "Node",
        "properties": {"children": {"type": "array", "items": {"$ref": "#/$defs/Node"}, "default": []}},
    }
    assert schema["properties"]["x"] == node
    assert schema["$defs"] == {"Node": node}
    validator = jsonschema.Draft202012Validator(schema)
    assert validator.is_valid({"x": {"children": [{"children": []}]}})
    assert not validator.is_valid({"x": {"children": [{"children": 3}]}})


def test_inline_refs_keeps_keys_beside_a_ref_and_leaves_values_alone() -> None:
    schema = {
        "$defs": {"U": {"enum": ["a"], "type": "string"}},
        "properties": {"u": {"$ref": "#/$defs/U", "description": "d", "default": {"$ref": "#/$defs/U"}}},
    }
    assert inline_refs(schema) == {
        "properties": {"u": {"enum": ["a"], "type": "string", "description": "d", "default": {"$ref": "#/$defs/U"}}}
    }


CONTEXT = ToolContext.for_call("t", "c1")


def test_bind_converts_and_passes_only_given_arguments() -> None:
    def f(unit: Unit, at: datetime.datetime, ratio: float, where: Address, ctx: ToolContext, n: int = 7) -> None:
        return None

    bound = read_signature(f, {}).bind(
        {"unit": "f", "at": "2024-05-01T12:00:00Z", "ratio": 2, "where": {"street": "Main"}}, CONTEXT
    )
    assert bound["unit"] is Unit.F
    assert bound["at"] == datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.UTC)
    assert bound["ratio"] == 2.0 and isinstance(bound["ratio"], float)
    assert bound["where"] == Address(street="Main")
    assert bound["ctx"] is CONTEXT
    assert "n" not in bound  # the function's own default applies


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "invalid arguments: unit: Field required"),
        ({"unit": "k"}, "invalid arguments: unit: Input should be 'c' or 'f'"),
        ({"unit": "c", "extra": 1}, "invalid arguments: extra: Extra inputs are not permitted"),
        ({"unit": "c", "where": {}}, "invalid arguments: where.street: Field required"),
    ],
)
def test_bind_names_each_bad_argument(arguments: dict[str, Any], message: str) -> None:
    def f(unit: Unit, where: Address | None = None) -> None:
        return None

    with pytest.raises(InvalidArgumentsError) as raised:
        read_signature(f, {}).bind(arguments, CONTEXT)
    assert str(raised.value) == message


def _var_positional(*items: str) -> None: ...
def _var_keyword(**options: str) -> None: ...
def _positional_only(key: str, /) -> None: ...
def _unannotated(key) -> None: ...  # type: ignore[no-untyped-def]
def _undefined_name(key: NoSuchType) -> None: ...  # type: ignore[name-defined]  # noqa: F821
def _no_schema(key: Callable[[], None]) -> None: ...
def _arbitrary(key: inspect.Signature) -> None: ...
def _two_contexts(a: ToolContext, b: ToolContext) -> None: ...


@pytest.mark.parametrize(
    ("function", "message"),
    [
        (_var_positional, "parameter 'items': *args and **kwargs cannot be described"),
        (_var_keyword, "parameter 'options': *args and **kwargs cannot be described"),
        (_positional_only, "parameter 'key' is positional-only"),
        (_unannotated, "parameter 'key' has no type annotation"),
        (_undefined_name, "cannot resolve its annotations (NameError: name 'NoSuchType' is not defined)"),
        (_no_schema, "parameter 'key': PydanticInvalidForJsonSchema"),
        (_arbitrary, "parameter 'key': PydanticSchemaGenerationError"),
        (_two_contexts, "parameter 'b': only one parameter may be a ToolContext ('a' is)"),
    ],
)
def test_signatures_a_model_cannot_call_are_refused_at_once(function: Callable[..., Any], message: str) -> None:
    with pytest.raises(TypeError) as raised:
        read_signature(function, {})
    assert str(raised.value).startswith(f"@tool {function.__qualname__}")
    assert message in str(raised.value)
