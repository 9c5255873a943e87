"""The built-in tool and MCP plugins wired the way the container wires them."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

from quorum.domain.tools import RiskLevel, ToolCall, ToolDefinition
from quorum.infrastructure.mcp.settings import McpServerSettings, McpSettings
from quorum.infrastructure.plugins.contracts import ToolSource, ToolSourceContext
from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.manager import load_plugins
from quorum.infrastructure.tools.executor import PluginToolExecutor
from quorum.infrastructure.tools.functions.source import FunctionToolSource
from quorum.infrastructure.tools.settings import ToolsSettings
from tests.support.config import settings_with

OTHER_BUILTINS = [
    "quorum.offline",
    "quorum.openai",
    "quorum.anthropic",
    "quorum.review",
    "quorum.sqlite",
    "quorum.conventions",
]


class GreetPlugin:
    @hookimpl
    def quorum_register_tools(self, registry):  # type: ignore[no-untyped-def]
        registry.add_tool(ToolDefinition(name="greet", risk=RiskLevel.LOW), lambda args: f"hello {args['who']}")


def test_registering_the_tool_plugins_does_not_import_the_mcp_sdk() -> None:
    code = (
        "import sys, quorum.infrastructure.tools.plugin, quorum.infrastructure.mcp.plugin;"
        "print(sorted(m for m in sys.modules if m == 'mcp' or m.startswith(('mcp.', 'mcp_types'))))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.strip() == "[]"


async def test_container_style_wiring_lists_and_runs_every_kind_of_tool(tmp_path: Path) -> None:
    catalog = load_plugins(blocked=OTHER_BUILTINS, autoload=False, extra=[("greet", GreetPlugin())])
    assert {e.name: e.plugin for e in catalog.tools.entries()} == {
        "builtin": "quorum.builtin_tools",
        "mcp": "quorum.mcp",
    }
    time_server = shutil.which("mcp-server-time")
    assert time_server
    settings = settings_with(
        ToolsSettings(risk={"mcp__time__*": "high"}, disabled=["write_file"]),
        McpSettings(servers={"time": McpServerSettings(command=time_server, args=["--local-timezone", "UTC"])}),
    )
    (tmp_path / "hello.txt").write_text("hi there\n")
    context = ToolSourceContext(workspace=tmp_path, settings=settings, env={}, cache_dir=tmp_path / "cache")
    sources = [entry.value(context) for entry in catalog.tools.entries()]
    sources.append(FunctionToolSource(catalog.tools.functions))
    assert all(isinstance(source, ToolSource) for source in sources)
    executor = PluginToolExecutor(sources=sources, settings=settings.section(ToolsSettings))
    try:
        listed = {t.definition.name: t for t in await executor.listed_tools()}
        assert (listed["read_file"].source, listed["read_file"].definition.risk) == ("builtin", RiskLevel.LOW)
        assert "write_file" not in listed
        time_tool = listed["mcp__time__get_current_time"]
        assert (time_tool.source, time_tool.origin, time_tool.definition.risk) == (
            "mcp",
            "mcp:time",
            RiskLevel.HIGH,
        )
        assert (listed["greet"].source, listed["greet"].origin) == ("functions", "greet")

        read = await executor.execute(ToolCall(native_id="1", name="read_file", arguments={"path": "hello.txt"}))
        assert read.output == "hi there\n"
        now = await executor.execute(
            ToolCall(native_id="2", name="mcp__time__get_current_time", arguments={"timezone": "UTC"})
        )
        assert '"timezone": "UTC"' in now.output
        greet = await executor.execute(ToolCall(native_id="3", name="greet", arguments={"who": "you"}))
        assert greet.output == "hello you"
        ls = ToolCall(native_id="4", name="run_command", arguments={"command": "ls"})
        assert executor.assess_risk(ls, listed["run_command"].definition).level is RiskLevel.LOW
        assert (tmp_path / "cache" / "mcp-tools" / "time.json").is_file()
        assert executor.problems == []
    finally:
        await executor.aclose()


async def test_a_broken_mcp_server_is_a_warning_not_a_crash(tmp_path: Path) -> None:
    catalog = load_plugins(blocked=OTHER_BUILTINS, autoload=False)
    settings = settings_with(McpSettings(servers={"gone": McpServerSettings(command="/nonexistent/server-binary")}))
    context = ToolSourceContext(workspace=tmp_path, settings=settings)
    executor = PluginToolExecutor(
        sources=[e.value(context) for e in catalog.tools.entries()], settings=settings.section(ToolsSettings)
    )
    try:
        names = (await executor.list_tools()).names()
        assert "read_file" in names and not any(n.startswith("mcp__") for n in names)
        assert len(executor.problems) == 1
        assert "MCP server 'gone' failed to start" in executor.problems[0]
    finally:
        await executor.aclose()
