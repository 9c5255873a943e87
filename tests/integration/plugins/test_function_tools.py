"""``@tool`` functions registered by a plugin, through the real plugin manager, container and loop."""

from __future__ import annotations

import datetime
import types
from enum import Enum
from pathlib import Path
from typing import Annotated, Any

import jsonschema
import pytest
from pydantic import BaseModel, Field

from quorum.application.execution import RunRequest
from quorum.composition.container import build_container
from quorum.composition.options import AppOptions
from quorum.domain import RiskLevel, ToolDefinition
from quorum.domain.errors import ConfigurationError
from quorum.domain.tools import ToolCall
from quorum.infrastructure.plugins import hookimpl, load_plugins
from quorum.infrastructure.plugins.registries import ToolRegistry
from quorum.infrastructure.providers.anthropic.wire import tools_to_wire as anthropic_tools
from quorum.infrastructure.providers.openai.wire import tools_to_wire as openai_tools
from quorum.infrastructure.tools.functions.source import FunctionToolSource
from quorum.infrastructure.tools.functions.tool import tool
from quorum.infrastructure.tools.functions.tool_context import ToolContext
from tests.fakes import FakeGateway, RecordingObserver, ScriptedSession, calls, text
from tests.support.docs import DOCS, marked_block


class Unit(Enum):
    C = "c"
    F = "f"


class Place(BaseModel):
    city: str
    country: str = "NO"


CONTEXTS: list[ToolContext] = []


@tool(risk="low")
async def weather(place: Place, unit: Unit = Unit.C) -> dict[str, Any]:
    """Current weather for a place.

    Args:
        place: Where.
        unit: Temperature unit.
    """
    return {"city": place.city, "country": place.country, "degrees": 21 if unit is Unit.C else 70}


@tool(risk="low", name="days_until")
def days_until(when: datetime.date, context: ToolContext, today: datetime.date = datetime.date(2024, 1, 1)) -> int:
    """Days from today until a date.

    Args:
        when: The date.
        today: Counting from.
    """
    CONTEXTS.append(context)
    return (when - today).days


@tool(risk="low")
def clamp(value: Annotated[float, Field(ge=0, le=1, description="A fraction.")]) -> float:
    """Return the value."""
    return value


class WeatherPlugin:
    @hookimpl
    def quorum_register_tools(self, registry: ToolRegistry) -> None:
        registry.add_tool(weather)
        registry.add_tool(days_until)
        registry.add_tool(clamp)
        registry.add_tool(ToolDefinition(name="legacy", risk=RiskLevel.LOW), lambda arguments: "still works")


@pytest.fixture(autouse=True)
def _isolated(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    CONTEXTS.clear()


def test_decorated_tools_are_registered_and_attributed_to_their_plugin() -> None:
    catalog = load_plugins(autoload=False, extra=[("weatherpack", WeatherPlugin())])
    mine = {(r.kind, r.name, r.plugin, r.description) for r in catalog.registrations() if r.plugin == "weatherpack"}
    assert mine == {
        ("tool", "weather", "weatherpack", "Current weather for a place."),
        ("tool", "days_until", "weatherpack", "Days from today until a date."),
        ("tool", "clamp", "weatherpack", "Return the value."),
        ("tool", "legacy", "weatherpack", ""),
    }


async def test_a_run_offers_validates_and_calls_decorated_tools() -> None:
    script = [
        calls(
            ("weather", {"place": {"city": "Oslo"}, "unit": "f"}),
            ("days_until", {"when": "2024-01-31"}),
            ("days_until", {"when": "not a date"}),  # JSON Schema does not check formats: pydantic does
            ("clamp", {"value": 2}),  # refused by the loop's JSON Schema check, before the call
            ("legacy", {}),
        ),
        text("done"),
    ]
    session = ScriptedSession(script)
    observer = RecordingObserver()
    container = build_container(
        AppOptions(no_log=True),
        env={},
        config_dir=None,
        gateway=FakeGateway(session),
        extra_plugins=[("weatherpack", WeatherPlugin())],
        observer=observer,
    )
    result = await container.run_agent().execute(RunRequest(task="t", model_id="fake:m"))
    assert result.output == "done"

    results = {e.call_id: (e.is_error, e.output) for e in observer.of("tool_result")}
    assert results["c1"] == (False, '{"city":"Oslo","country":"NO","degrees":70}')
    assert results["c2"] == (False, "30")
    assert results["c3"][0] is True
    assert results["c3"][1].startswith("invalid arguments: when: Input should be a valid date")
    assert results["c4"][0] is True and "value" in results["c4"][1]
    assert results["c5"] == (False, "still works")
    # The context carries the call, the run (RunAgent publishes its id) and the workspace.
    assert [(c.call_id, c.workspace, c.logger.name) for c in CONTEXTS] == [
        ("c2", Path.cwd().resolve(), "quorum.tools.days_until")
    ]
    assert CONTEXTS[0].run_id == result.run_id


async def test_offered_schemas_meet_both_wires() -> None:
    session = ScriptedSession([text("nothing to do")])
    container = build_container(
        AppOptions(no_log=True),
        env={},
        config_dir=None,
        gateway=FakeGateway(session),
        extra_plugins=[("weatherpack", WeatherPlugin())],
    )
    await container.run_agent().execute(RunRequest(task="t", model_id="fake:m"))
    kind, (_, offered) = session.sent[0]
    assert kind == "send_with_tools"
    schemas = {t["name"]: t for t in offered if t["name"] in {"weather", "days_until", "clamp"}}
    assert schemas["weather"]["input_schema"]["properties"]["place"]["properties"]["city"] == {"type": "string"}
    assert "context" not in schemas["days_until"]["input_schema"]["properties"]
    for wire in (openai_tools(list(schemas.values())), anthropic_tools(list(schemas.values()))):
        for entry in wire:
            schema = entry.get("input_schema") or entry["function"]["parameters"]
            assert schema["type"] == "object" and isinstance(schema["properties"], dict)
            assert "$ref" not in str(schema)  # inlined: every model reads it without following references
            jsonschema.Draft202012Validator.check_schema(schema)


class Duplicate:
    @hookimpl
    def quorum_register_tools(self, registry: ToolRegistry) -> None:
        registry.add_tool(weather)


class Misuse:
    def __init__(self, *arguments: Any) -> None:
        self.arguments = arguments

    @hookimpl
    def quorum_register_tools(self, registry: ToolRegistry) -> None:
        registry.add_tool(*self.arguments)


def test_a_decorated_tool_registered_twice_names_both_plugins() -> None:
    with pytest.raises(ConfigurationError, match="tool 'weather' is registered twice: by plugin 'a' and by plugin 'b'"):
        load_plugins(autoload=False, extra=[("a", Duplicate()), ("b", Duplicate())])


async def plain(city: str) -> str:
    return city


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ((plain,), "add_tool needs a function decorated with @tool (or a ToolDefinition and a function), got function"),
        ((weather, plain), "add_tool('weather', …) takes no function"),
        ((ToolDefinition(name="x"), None), "tool 'x': the factory must be callable"),
    ],
)
def test_add_tool_misuse_is_a_configuration_error(arguments: tuple[Any, ...], message: str) -> None:
    with pytest.raises(ConfigurationError) as raised:
        load_plugins(autoload=False, extra=[("misuse", Misuse(*arguments))])
    assert message in str(raised.value)


async def test_the_documented_plugin_example_works() -> None:
    code = marked_block(DOCS / "plugins.md", "plugin")
    example = types.ModuleType("docs_plugin")
    exec(compile(code, "docs/plugins.md", "exec"), example.__dict__)
    catalog = load_plugins(autoload=False, extra=[("docs", example)])
    assert catalog.tools.functions["convert"].definition.risk is RiskLevel.HIGH
    source = FunctionToolSource(catalog.tools.functions)
    outcome = await source.execute(ToolCall(native_id="1", name="convert", arguments={"amount": 2, "to": "eur"}))
    assert outcome.output == '{"amount":2.0,"currency":"eur"}'
    echoed = await source.execute(ToolCall(native_id="2", name="echo", arguments={"text": "hi"}))
    assert echoed.output == "hi"
