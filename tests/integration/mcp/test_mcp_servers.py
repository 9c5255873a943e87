"""McpToolSource against real servers: the probe over stdio and HTTP, and mcp-server-time.

One source (all servers started once, concurrently) is shared by the module, since a Python MCP
server takes over a second to start.
"""

from __future__ import annotations

import asyncio
import shutil
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from quorum.domain.tools import RiskLevel, ToolCall
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.source import McpToolSource
from tests.integration.mcp.conftest import call, probe

pytestmark = pytest.mark.asyncio(loop_scope="module")


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def source(http_probe_url: str) -> AsyncIterator[McpToolSource]:
    time_server = shutil.which("mcp-server-time")
    assert time_server, "mcp-server-time (a dev dependency) is not installed"
    servers = {
        "probe": probe(env={"PROBE_TOKEN": "${TEST_TOKEN}"}, disabled_tools=["slow"]),
        "web": McpServerSettings(url=http_probe_url, headers={"X-Probe": "Bearer ${TEST_TOKEN}"}, risk="low"),
        "time": McpServerSettings(command=time_server, args=["--local-timezone", "UTC"]),
        "broken": probe("--fail"),
        "stuck": probe("--hang", timeout_seconds=2),
        "unset": probe(env={"KEY": "${NOT_SET_ANYWHERE}"}),
    }
    src = McpToolSource(servers, env={"TEST_TOKEN": "t0k3n"})
    await src.list_tools()
    yield src
    await src.aclose()


async def test_tools_are_namespaced_per_server(source: McpToolSource) -> None:
    names = {t.name for t in await source.list_tools()}
    assert {
        "mcp__probe__fast",
        "mcp__web__fast",
        "mcp__time__get_current_time",
        "mcp__time__convert_time",
    } <= names
    assert "mcp__probe__slow" not in names  # disabled_tools
    long = [n for n in names if n.startswith("mcp__probe__a_really_long")]
    assert len(long) == 1 and len(long[0]) == 64
    assert (await call(source, long[0])).output == "long"  # called by its original name
    assert (await call(source, "mcp__probe__fast", text="hi")).output == "echo: hi"
    assert source.origin("mcp__web__fast") == "mcp:web"


async def test_risk_comes_from_annotations_then_the_server_setting(source: McpToolSource) -> None:
    risk = {t.name: t.risk for t in await source.list_tools()}
    assert risk["mcp__probe__lookup"] is RiskLevel.LOW
    assert risk["mcp__probe__odd_read"] is RiskLevel.HIGH
    assert risk["mcp__probe__wipe"] is RiskLevel.HIGH
    assert risk["mcp__probe__fast"] is RiskLevel.HIGH
    assert risk["mcp__web__fast"] is RiskLevel.LOW  # the server's risk = "low"
    assert risk["mcp__time__get_current_time"] is RiskLevel.LOW  # annotated read-only by its authors
    tools = {t.name: t for t in await source.list_tools()}
    call_ = ToolCall(native_id="c", name="mcp__probe__lookup", arguments={"key": "k"})
    assert "readOnlyHint" in source.assess_risk(call_, tools["mcp__probe__lookup"]).reason


async def test_results_text_images_and_errors(source: McpToolSource) -> None:
    image = await call(source, "mcp__probe__image")
    assert image.output == "[image: image/png, 70 bytes]" and not image.is_error
    boom = await call(source, "mcp__probe__boom")
    assert boom.is_error and "boom" in boom.output
    refused = await call(source, "mcp__probe__refuse", reason="not today")
    assert refused.is_error and "refused: not today" in refused.output
    bad_args = await call(source, "mcp__probe__fast")
    assert bad_args.is_error


async def test_published_time_server_over_stdio(source: McpToolSource) -> None:
    outcome = await call(source, "mcp__time__get_current_time", timezone="UTC")
    assert not outcome.is_error
    assert '"timezone": "UTC"' in outcome.output
    converted = await call(
        source, "mcp__time__convert_time", source_timezone="UTC", time="12:00", target_timezone="Asia/Tokyo"
    )
    assert "21:00" in converted.output


@pytest.mark.parametrize("server", ["probe", "web"])
async def test_concurrent_calls_share_one_session(source: McpToolSource, server: str) -> None:
    """Four calls that can only finish when all four are inside the server at once."""
    results = await asyncio.gather(
        *(call(source, f"mcp__{server}__barrier", key=f"{server}-gather", parties=4) for _ in range(4))
    )
    assert [r.output for r in results] == [f"barrier {server}-gather passed by 4"] * 4


async def test_variables_reach_the_server(source: McpToolSource) -> None:
    assert (await call(source, "mcp__probe__getenv", name="PROBE_TOKEN")).output == "t0k3n"
    assert (await call(source, "mcp__web__header", name="X-Probe")).output == "Bearer t0k3n"


async def test_servers_that_never_start_are_reported_and_the_rest_work(source: McpToolSource) -> None:
    problems = "\n".join(source.problems)
    assert "'broken' failed to start" in problems
    assert "fatal: probe configured to fail" in problems  # the stderr tail
    assert "'stuck' did not start within 2 s" in problems
    assert "mcp.servers.unset.env.KEY uses ${NOT_SET_ANYWHERE}, which is not set" in problems
    assert {c.name: c.state for c in source.connections.values()} == {
        "probe": "running",
        "web": "running",
        "time": "running",
        "broken": "failed",
        "stuck": "failed",
        "unset": "failed",
    }
    names = {t.name for t in await source.list_tools()}
    assert not any(n.startswith(("mcp__broken__", "mcp__stuck__", "mcp__unset__")) for n in names)
    assert not (await call(source, "mcp__probe__fast", text="still here")).is_error


async def test_a_cancelled_call_leaves_the_session_usable(source: McpToolSource) -> None:
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(call(source, "mcp__web__slow", seconds=30), 0.5)
    assert (await call(source, "mcp__web__fast", text="after")).output == "echo: after"
