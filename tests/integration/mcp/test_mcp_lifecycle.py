"""Server lifecycles with real processes: list changes, death and one restart, lazy start from a cache."""

from __future__ import annotations

import asyncio
import os
import signal
from pathlib import Path

from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.source import McpToolSource
from tests.integration.mcp.conftest import call, probe, start_http_probe


async def kill_during_a_call(source: McpToolSource, server: str) -> str:
    """SIGKILL the server while a slow call is in flight; the in-flight call's output."""
    slow = asyncio.create_task(call(source, f"mcp__{server}__slow", seconds=60))
    pid = int((await call(source, f"mcp__{server}__pid")).output)
    os.kill(pid, signal.SIGKILL)
    outcome = await asyncio.wait_for(slow, 30)
    assert outcome.is_error
    return outcome.output


async def test_list_changes_then_death_then_one_restart() -> None:
    source = McpToolSource({"p": probe()})
    try:
        assert "mcp__p__extra" not in {t.name for t in await source.list_tools()}
        connection = source.connections["p"]
        assert (await call(source, "mcp__p__grow", name="extra")).output == "added extra"
        await asyncio.wait_for(connection.tools_changed.wait(), 30)
        assert "mcp__p__extra" in {t.name for t in await source.list_tools()}
        assert (await call(source, "mcp__p__extra")).output == "I am extra"

        died = await kill_during_a_call(source, "p")
        assert "MCP server 'p' died during the call to 'slow'" in died
        assert "restarted once on the next call" in died
        assert connection.state == "dead"
        assert {t.name for t in await source.list_tools()} >= {"mcp__p__fast"}  # still offered while dead

        assert (await call(source, "mcp__p__fast", text="back")).output == "echo: back"
        assert (connection.state, connection.restarts) == ("running", 1)
        # A fresh process: the tool added at run time is gone and the list says so.
        assert "mcp__p__extra" not in {t.name for t in await source.list_tools()}

        await kill_during_a_call(source, "p")
        again = await call(source, "mcp__p__fast", text="x")
        assert again.is_error
        assert "died and was already restarted once" in again.output
        assert connection.restarts == 1
    finally:
        await source.aclose()
    assert source.connections["p"].state == "closed"


async def test_lazy_server_lists_from_the_cache_and_starts_on_first_call(tmp_path: Path) -> None:
    servers = {"lz": probe(lazy=True)}
    first = McpToolSource(servers, cache_dir=tmp_path)
    try:
        # No cache yet: the server is started once to learn its tools, and the list is cached.
        assert "mcp__lz__fast" in {t.name for t in await first.list_tools()}
        assert first.connections["lz"].state == "running"
    finally:
        await first.aclose()
    assert (tmp_path / "lz.json").is_file()

    second = McpToolSource(servers, cache_dir=tmp_path)
    try:
        tools = {t.name: t for t in await second.list_tools()}
        connection = second.connections["lz"]
        assert connection.state == "idle"  # offered without starting
        assert tools["mcp__lz__lookup"].risk.value == "low"  # annotations survive the cache
        assert tools["mcp__lz__fast"].input_schema["required"] == ["text"]
        assert (await call(second, "mcp__lz__fast", text="lazy")).output == "echo: lazy"
        assert connection.state == "running"
    finally:
        await second.aclose()


async def test_a_lazy_server_that_fails_answers_with_a_clear_error(tmp_path: Path) -> None:
    good = McpToolSource({"lz": probe(lazy=True)}, cache_dir=tmp_path)
    try:
        await good.list_tools()
    finally:
        await good.aclose()
    # Same cache key (command and args), but the server now cannot start: its environment is broken.
    broken = McpToolSource({"lz": probe(lazy=True, env={"K": "${MISSING}"})}, cache_dir=tmp_path)
    try:
        assert "mcp__lz__fast" in {t.name for t in await broken.list_tools()}
        outcome = await call(broken, "mcp__lz__fast", text="x")
        assert outcome.is_error
        assert "MCP server 'lz' is unavailable" in outcome.output and "${MISSING}" in outcome.output
        assert broken.connections["lz"].state == "failed"
    finally:
        await broken.aclose()


async def test_http_server_killed_mid_call_then_reconnected_once_it_is_back() -> None:
    process, url = start_http_probe()
    source = McpToolSource({"w": McpServerSettings(url=url, timeout_seconds=10)})
    try:
        await source.list_tools()
        slow = asyncio.create_task(call(source, "mcp__w__slow", seconds=60))
        assert not (await call(source, "mcp__w__fast", text="in flight")).is_error  # the session is busy with slow
        process.kill()
        process.wait(10)
        died = await asyncio.wait_for(slow, 30)
        assert died.is_error and "MCP server 'w' died during the call to 'slow'" in died.output
        process, _ = start_http_probe(url)
        assert (await call(source, "mcp__w__fast", text="back")).output == "echo: back"
        assert (source.connections["w"].state, source.connections["w"].restarts) == ("running", 1)
    finally:
        await source.aclose()
        process.kill()
        process.wait(10)
