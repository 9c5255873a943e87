from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from quorum.application.ports.tool_executor import ToolExecutor
from quorum.domain.errors import ToolRefusedError, ToolSourceError
from quorum.domain.tools import Clearance, RiskAssessment, RiskLevel, ToolCall, ToolDefinition, ToolResult
from quorum.infrastructure.plugins.registries import ToolRegistry
from quorum.infrastructure.tools.executor import PluginToolExecutor
from quorum.infrastructure.tools.functions.source import FunctionToolSource
from quorum.infrastructure.tools.settings import ToolsSettings

LOW, HIGH = RiskLevel.LOW, RiskLevel.HIGH


@dataclass
class EchoSource:
    """A working source: its tools echo their source name and arguments."""

    name: str
    tools: list[str]
    risk: RiskLevel = LOW
    output: str | None = None
    fail_listing: bool = False
    fail_close: bool = False
    closed: int = 0
    calls: list[str] = field(default_factory=list)

    async def list_tools(self) -> Sequence[ToolDefinition]:
        if self.fail_listing:
            raise ToolSourceError("server exploded", source=self.name)
        return [ToolDefinition(name=t, description=t, risk=self.risk) for t in self.tools]

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        return RiskAssessment(level=self.risk, reason=f"{self.name} says so")

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        self.calls.append(call.name)
        if call.arguments.get("refuse"):
            raise ToolRefusedError("path escapes the workspace")
        if call.arguments.get("crash"):
            raise RuntimeError("bug")
        return ToolResult(output=self.output if self.output is not None else f"{self.name}:{call.name}")

    async def aclose(self) -> None:
        self.closed += 1
        if self.fail_close:
            raise OSError("cannot close")


def call(name: str, **arguments: object) -> ToolCall:
    return ToolCall(native_id="c1", name=name, arguments=arguments)


def executor(*sources: EchoSource, **settings: object) -> PluginToolExecutor:
    return PluginToolExecutor(sources=list(sources), settings=ToolsSettings(**settings))  # type: ignore[arg-type]


async def test_lists_every_source_and_routes_calls_to_the_lister() -> None:
    a, b = EchoSource("a", ["read", "grep"]), EchoSource("b", ["mcp__x__now"])
    ex: ToolExecutor = executor(a, b)
    spec = await ex.list_tools()
    assert spec.names() == ["read", "grep", "mcp__x__now"]
    assert (await ex.execute(call("mcp__x__now"))).output == "b:mcp__x__now"
    assert (await ex.execute(call("grep"))).output == "a:grep"
    assert a.calls == ["grep"] and b.calls == ["mcp__x__now"]


async def test_execute_before_listing_lists_first() -> None:
    ex = executor(EchoSource("a", ["read"]))
    assert (await ex.execute(call("read"))).output == "a:read"


async def test_enabled_and_disabled_globs_filter_and_disabled_wins() -> None:
    src = EchoSource("a", ["read_file", "write_file", "mcp__time__now", "mcp__git__log"])
    ex = executor(src, enabled=["*_file", "mcp__*"], disabled=["write_*", "mcp__git__*"])
    assert (await ex.list_tools()).names() == ["read_file", "mcp__time__now"]
    outcome = await ex.execute(call("write_file"))
    assert outcome.is_error and "not offered" in outcome.output
    assert src.calls == []


async def test_risk_override_beats_the_source_assessment_both_ways() -> None:
    low, high = EchoSource("l", ["mcp__time__now"], risk=LOW), EchoSource("h", ["run_command"], risk=HIGH)
    ex = executor(low, high, risk={"mcp__time__*": "high", "run_*": "low"})
    spec = await ex.list_tools()
    assert spec.get("mcp__time__now").risk is HIGH  # type: ignore[union-attr]
    assert spec.get("run_command").risk is LOW  # type: ignore[union-attr]
    assessed = ex.assess_risk(call("mcp__time__now"), spec.get("mcp__time__now"))  # type: ignore[arg-type]
    assert assessed.level is HIGH and "mcp__time__*" in assessed.reason
    assert ex.assess_risk(call("run_command"), spec.get("run_command")).level is LOW  # type: ignore[arg-type]


async def test_exact_override_then_longest_glob_wins() -> None:
    ex = executor(
        EchoSource("a", ["mcp__t__a", "mcp__t__b"]),
        risk={"mcp__*": "low", "mcp__t__*": "high", "mcp__t__b": "low"},
    )
    spec = await ex.list_tools()
    assert spec.get("mcp__t__a").risk is HIGH  # type: ignore[union-attr]
    assert spec.get("mcp__t__b").risk is LOW  # type: ignore[union-attr]


async def test_without_override_the_source_decides() -> None:
    src = EchoSource("a", ["x"], risk=HIGH)
    ex = executor(src)
    spec = await ex.list_tools()
    assessed = ex.assess_risk(call("x"), spec.get("x"))  # type: ignore[arg-type]
    assert assessed == RiskAssessment(level=HIGH, reason="a says so")


async def test_a_failing_source_is_reported_and_left_out() -> None:
    ex = executor(EchoSource("broken", ["b"], fail_listing=True), EchoSource("ok", ["o"]))
    assert (await ex.list_tools()).names() == ["o"]
    assert any("broken" in p and "server exploded" in p for p in ex.problems)


async def test_duplicate_names_first_source_wins_and_the_clash_is_reported() -> None:
    first, second = EchoSource("first", ["read"]), EchoSource("second", ["read"])
    ex = executor(first, second)
    listed = await ex.listed_tools()
    assert [(t.definition.name, t.source) for t in listed] == [("read", "first")]
    assert (await ex.execute(call("read"))).output == "first:read"
    assert any("second" in p and "read" in p for p in ex.problems)


async def test_output_is_capped_with_a_note_saying_how_much_was_cut() -> None:
    ex = executor(EchoSource("a", ["big"], output="é" * 3000), output_limit_bytes=1000)
    outcome = await ex.execute(call("big"))
    body, note = outcome.output.rsplit("\n", 1)
    assert body == "é" * 500
    assert note == "[output truncated: showed 1000 of 6000 bytes, 5000 cut]"


async def test_short_output_is_untouched() -> None:
    ex = executor(EchoSource("a", ["small"], output="fine"))
    assert (await ex.execute(call("small"))) == ToolResult(output="fine")


async def test_refusals_and_crashes_become_error_results() -> None:
    ex = executor(EchoSource("a", ["t"]))
    refused = await ex.execute(call("t", refuse=True))
    assert refused.is_error and refused.output == "path escapes the workspace"
    crashed = await ex.execute(call("t", crash=True))
    assert crashed.is_error and "RuntimeError: bug" in crashed.output


async def test_aclose_closes_every_source_even_when_one_fails() -> None:
    bad, good = EchoSource("bad", [], fail_close=True), EchoSource("good", [])
    ex = executor(bad, good)
    await ex.aclose()
    assert bad.closed == 1 and good.closed == 1
    assert any("bad" in p and "cannot close" in p for p in ex.problems)


async def test_function_tools_registered_by_plugins_run_sync_and_async() -> None:
    registry = ToolRegistry()
    registry.current_plugin = "weather-plugin"
    registry.add_tool(ToolDefinition(name="sync_tool", risk=LOW), lambda args: f"sync {args['x']}")

    async def async_tool(args: dict[str, object]) -> ToolResult:
        return ToolResult(output=f"async {args['x']}", is_error=True)

    registry.add_tool(ToolDefinition(name="async_tool"), async_tool)
    ex = PluginToolExecutor(sources=[FunctionToolSource(registry.functions)], settings=ToolsSettings())
    listed = await ex.listed_tools()
    assert [(t.definition.name, t.source, t.origin) for t in listed] == [
        ("sync_tool", "functions", "weather-plugin"),
        ("async_tool", "functions", "weather-plugin"),
    ]
    assert await ex.execute(call("sync_tool", x=1)) == ToolResult(output="sync 1")
    assert await ex.execute(call("async_tool", x=2)) == ToolResult(output="async 2", is_error=True)
    spec = await ex.list_tools()
    assert ex.assess_risk(call("async_tool"), spec.get("async_tool")).level is HIGH  # type: ignore[arg-type]


@pytest.mark.parametrize("limit", [1000, 1001, 1002])
def test_cap_never_splits_a_character(limit: int) -> None:
    from quorum.infrastructure.tools.output import cap_text

    out = cap_text("€" * 1000, limit)
    out.encode("utf-8")
    assert out.startswith("€" * (limit // 3))
