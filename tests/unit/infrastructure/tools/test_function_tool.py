"""``@tool``: the decorator, calls through ``Tool.invoke`` and the function tool source."""

from __future__ import annotations

import asyncio
import contextvars
import datetime
import threading
import time
from enum import Enum
from pathlib import Path
from typing import Any, Literal

import pytest
from pydantic import BaseModel

from quorum.domain.tools import RiskLevel, ToolCall, ToolDefinition, ToolResult
from quorum.infrastructure.plugins.registries import ToolRegistry
from quorum.infrastructure.tools.executor import PluginToolExecutor
from quorum.infrastructure.tools.functions.source import FunctionToolSource
from quorum.infrastructure.tools.functions.tool import Tool, encode_result, tool
from quorum.infrastructure.tools.functions.tool_context import ToolContext

CONTEXT = ToolContext.for_call("t", "call_1", run_id="run_1")


class Unit(Enum):
    C = "c"
    F = "f"


class Reading(BaseModel):
    city: str
    degrees: float
    at: datetime.datetime


@tool
async def weather(city: str, unit: Literal["c", "f"] = "c") -> str:
    """Current weather for a city.

    Args:
        city: City name.
        unit: Temperature unit.
    """
    return f"{city}: 21 {unit}"


@tool(risk="low", name="lookup", timeout=5)
def lookup_value(key: str) -> dict[str, Any]:
    """Look a key up."""
    return {"key": key, "thread": threading.current_thread().name, "daemon": threading.current_thread().daemon}


def test_bare_decorator_defaults() -> None:
    assert isinstance(weather, Tool)
    assert weather.definition == ToolDefinition(
        name="weather",
        description="Current weather for a city.",
        risk=RiskLevel.HIGH,
        input_schema={
            "type": "object",
            "properties": {
                "city": {"type": "string", "description": "City name."},
                "unit": {"enum": ["c", "f"], "type": "string", "default": "c", "description": "Temperature unit."},
            },
            "required": ["city"],
            "additionalProperties": False,
        },
    )
    assert weather.timeout is None


def test_keyword_options() -> None:
    assert (lookup_value.name, lookup_value.definition.risk, lookup_value.timeout) == ("lookup", RiskLevel.LOW, 5.0)

    @tool(risk=RiskLevel.LOW, description="Said here.")
    def quiet() -> str:
        """Not this."""
        return ""

    assert (quiet.definition.description, quiet.definition.risk) == ("Said here.", RiskLevel.LOW)

    @tool()
    def empty_parentheses() -> str:
        return ""

    assert (empty_parentheses.name, empty_parentheses.definition.description) == ("empty_parentheses", "")


async def test_the_decorated_function_is_still_a_function() -> None:
    assert await weather("Oslo", unit="f") == "Oslo: 21 f"
    assert lookup_value("k")["key"] == "k"


@pytest.mark.parametrize(
    ("options", "message"),
    [
        ({"risk": "medium"}, "risk must be 'low' or 'high', got 'medium'"),
        ({"timeout": 0}, "timeout must be a positive number of seconds, got 0"),
        ({"timeout": True}, "timeout must be a positive number of seconds, got True"),
        ({"name": "has space"}, "'has space' is not a valid tool name"),
    ],
)
def test_invalid_options_are_refused(options: dict[str, Any], message: str) -> None:
    with pytest.raises(ValueError, match="^@tool: ") as raised:
        tool(**options)(lambda: None)  # type: ignore[call-overload]
    assert message in str(raised.value)


def test_a_lambda_needs_a_name_and_a_class_is_not_a_function() -> None:
    with pytest.raises(ValueError, match="'<lambda>' is not a valid tool name"):
        tool(lambda: None)
    with pytest.raises(TypeError, match="@tool decorates functions, got <class "):
        tool(Reading)  # type: ignore[arg-type]


async def test_async_tool_receives_converted_keyword_arguments() -> None:
    seen: dict[str, Any] = {}

    @tool
    async def record(unit: Unit, reading: Reading, ratio: float, when: datetime.date | None = None) -> str:
        seen.update(unit=unit, reading=reading, ratio=ratio, when=when)
        return "ok"

    arguments = {"unit": "f", "reading": {"city": "Oslo", "degrees": 3, "at": "2024-05-01T12:00:00Z"}, "ratio": 1}
    assert await record.invoke(arguments, CONTEXT) == ToolResult(output="ok")
    assert seen["unit"] is Unit.F
    assert seen["reading"] == Reading(
        city="Oslo", degrees=3.0, at=datetime.datetime(2024, 5, 1, 12, tzinfo=datetime.UTC)
    )
    assert isinstance(seen["ratio"], float) and seen["when"] is None


DEFAULT_ITEMS: list[int] = []


async def test_omitted_arguments_take_the_function_s_own_default() -> None:
    @tool
    def which(value: str | None = None, items: list[int] = DEFAULT_ITEMS) -> str:
        return f"{value is None} {items is DEFAULT_ITEMS}"

    assert (await which.invoke({}, CONTEXT)).output == "True True"
    assert (await which.invoke({"items": []}, CONTEXT)).output == "True False"


async def test_sync_tool_runs_in_a_daemon_worker_thread() -> None:
    outcome = await lookup_value.invoke({"key": "k"}, CONTEXT)
    assert outcome.output == '{"key":"k","thread":"quorum-tool","daemon":true}'


async def test_sync_tool_sees_the_caller_s_context_variables() -> None:
    request = contextvars.ContextVar("request", default="none")

    @tool
    def current() -> str:
        return request.get()

    request.set("r-42")
    assert (await current.invoke({}, CONTEXT)).output == "r-42"


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({}, "invalid arguments: city: Field required"),
        ({"city": 3}, "invalid arguments: city: Input should be a valid string"),
        ({"city": "Oslo", "unit": "k"}, "invalid arguments: unit: Input should be 'c' or 'f'"),
        ({"city": "Oslo", "where": "x"}, "invalid arguments: where: Extra inputs are not permitted"),
    ],
)
async def test_invalid_arguments_are_an_error_result_naming_the_argument(
    arguments: dict[str, Any], message: str
) -> None:
    assert await weather.invoke(arguments, CONTEXT) == ToolResult(output=message, is_error=True)


async def test_a_tool_context_parameter_receives_the_context() -> None:
    seen: list[ToolContext] = []

    @tool
    async def where(path: str, ctx: ToolContext) -> str:
        seen.append(ctx)
        ctx.logger.debug("looking at %s", path)
        return path

    assert "ctx" not in where.definition.input_schema["properties"]  # type: ignore[index]
    await where.invoke({"path": "a"}, CONTEXT)
    assert seen == [CONTEXT]


@pytest.mark.parametrize(
    ("value", "output"),
    [
        ("plain text", "plain text"),
        ("", ""),
        ({"a": [1, 2.5, None]}, '{"a":[1,2.5,null]}'),
        ([1, "two"], '[1,"two"]'),
        (None, "null"),
        (3, "3"),
        (True, "true"),
        (Unit.F, '"f"'),
        ({"ü": "ß"}, '{"ü":"ß"}'),
        (datetime.date(2024, 5, 1), '"2024-05-01"'),
        (
            Reading(city="Oslo", degrees=2, at=datetime.datetime(2024, 5, 1)),
            '{"city":"Oslo","degrees":2.0,"at":"2024-05-01T00:00:00"}',
        ),
        (Path("a/b"), '"a/b"'),
    ],
)
def test_return_values_are_encoded(value: Any, output: str) -> None:
    assert encode_result(value) == ToolResult(output=output)


def test_an_outcome_is_passed_through_and_a_value_without_json_is_refused() -> None:
    outcome = ToolResult(output="no", is_error=True)
    assert encode_result(outcome) is outcome
    with pytest.raises(TypeError, match="the tool returned a object, which has no JSON form"):
        encode_result(object())


async def test_exceptions_are_left_to_the_executor_which_words_them_as_for_any_tool() -> None:
    @tool(risk="low")
    def explode(reason: str) -> str:
        raise ValueError(reason)

    with pytest.raises(ValueError, match="boom"):
        await explode.invoke({"reason": "boom"}, CONTEXT)
    registry = ToolRegistry()
    registry.add_tool(explode)
    executor = PluginToolExecutor([FunctionToolSource(registry.functions)])
    outcome = await executor.execute(ToolCall(native_id="1", name="explode", arguments={"reason": "boom"}))
    assert outcome == ToolResult(output="tool 'explode' failed: ValueError: boom", is_error=True)


async def test_timeout_bounds_an_async_tool() -> None:
    @tool(timeout=0.05)
    async def slow() -> str:
        await asyncio.sleep(30)
        return "late"

    started = time.monotonic()
    outcome = await slow.invoke({}, CONTEXT)
    assert outcome == ToolResult(output="slow timed out after 0.05 s and was cancelled", is_error=True)
    assert time.monotonic() - started < 5


async def test_timeout_abandons_a_stuck_sync_tool_s_daemon_thread() -> None:
    release = threading.Event()

    @tool(timeout=0.05)
    def stuck() -> str:
        release.wait(30)
        return "late"

    try:
        outcome = await stuck.invoke({}, CONTEXT)
        assert outcome.is_error and outcome.output.endswith("and was cancelled (its thread was abandoned)")
    finally:
        release.set()


async def test_the_function_s_own_timeout_error_is_not_the_deadline() -> None:
    @tool(timeout=10)
    async def gives_up() -> str:
        raise TimeoutError("upstream")

    with pytest.raises(TimeoutError, match="upstream"):
        await gives_up.invoke({}, CONTEXT)


async def test_the_function_source_builds_a_context_or_passes_the_caller_s(tmp_path: Path) -> None:
    seen: list[ToolContext] = []

    @tool(risk="low")
    def remember(ctx: ToolContext) -> str:
        seen.append(ctx)
        return "ok"

    registry = ToolRegistry()
    registry.add_tool(remember)
    source = FunctionToolSource(registry.functions, workspace=tmp_path)
    call = ToolCall(native_id="call_9", name="remember", arguments={})
    assert await source.execute(call) == ToolResult(output="ok")
    assert await source.execute(call, context=CONTEXT) == ToolResult(output="ok")
    built, given = seen
    assert (built.run_id, built.workspace, built.call_id, built.logger.name) == (
        "",
        tmp_path,
        "call_9",
        "quorum.tools.remember",
    )
    assert given is CONTEXT


async def test_the_older_definition_and_function_form_is_called_as_before() -> None:
    legacy = Tool.from_definition(ToolDefinition(name="greet"), lambda arguments: arguments)
    assert (legacy.signature, legacy.timeout) == (None, None)
    assert await legacy.invoke({"who": "you"}, CONTEXT) == ToolResult(output="{'who': 'you'}")
