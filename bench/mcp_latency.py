"""MCP latency: time to first tool result (eager vs lazy server), and per-call overhead of McpToolSource.

    python bench/mcp_latency.py [--calls 200] [--starts 3]

1. Eager stdio server: from creating the source to the first tool result (list_tools starts the server).
   Lazy stdio server with a warm tool-list cache: the tool list is available without a start; the
   first call pays the start. Both use the probe server from tests/support/mcp_servers.
2. Per-call overhead: sequential calls of the ``fast`` tool through McpToolSource vs the bare
   ``mcp.Client`` — over stdio (two processes of the same server) and over streamable HTTP (both
   clients on the same server process).
"""

from __future__ import annotations

import argparse
import asyncio
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from quorum.domain.tools import ToolCall
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.source import McpToolSource

PROBE = Path(__file__).resolve().parents[1] / "tests" / "support" / "mcp_servers" / "probe_server.py"
STDIO = McpServerSettings(command=sys.executable, args=[str(PROBE)])
CALL = ToolCall(native_id="b", name="mcp__p__fast", arguments={"text": "x"})


async def first_result(settings: McpServerSettings, cache: Path | None) -> tuple[float, float]:
    """(seconds to the tool list, seconds to the first tool result) from a fresh source."""
    began = time.perf_counter()
    source = McpToolSource({"p": settings}, cache_dir=cache)
    try:
        await source.list_tools()
        listed = time.perf_counter() - began
        outcome = await source.execute(CALL)
        assert outcome.output == "echo: x", outcome
        return listed, time.perf_counter() - began
    finally:
        await source.aclose()


async def through_source(settings: McpServerSettings, calls: int) -> list[float]:
    source = McpToolSource({"p": settings})
    try:
        await source.list_tools()
        await source.execute(CALL)
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            await source.execute(CALL)
            times.append(time.perf_counter() - t)
        return times
    finally:
        await source.aclose()


async def bare_client(target: object, calls: int) -> list[float]:
    import os

    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    devnull = open(os.devnull, "w")  # noqa: SIM115 - the server's stderr banner is not a figure
    params = StdioServerParameters(command=str(STDIO.command), args=list(STDIO.args))
    server = stdio_client(params, errlog=devnull) if target is None else target
    async with Client(server) as client:  # type: ignore[arg-type]
        await client.list_tools()
        await client.call_tool("fast", {"text": "x"})
        times = []
        for _ in range(calls):
            t = time.perf_counter()
            await client.call_tool("fast", {"text": "x"})
            times.append(time.perf_counter() - t)
        return times


def ms(values: list[float]) -> str:
    q = statistics.quantiles(values, n=10)
    return f"median {statistics.median(values) * 1000:6.2f} ms   p90 {q[8] * 1000:6.2f} ms"


def start_http_server() -> tuple[subprocess.Popen[bytes], str]:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    process = subprocess.Popen(
        [sys.executable, str(PROBE), "--http", str(port)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise
            time.sleep(0.05)


async def main(calls: int, starts: int) -> None:
    print(f"MCP latency (probe server, {starts} starts each, {calls} sequential calls per client)\n")
    with tempfile.TemporaryDirectory() as tmp:
        cache = Path(tmp)
        eager = [await first_result(STDIO, None) for _ in range(starts)]
        lazy_settings = STDIO.model_copy(update={"lazy": True})
        await first_result(lazy_settings, cache)  # writes the cache (a lazy server with no cache starts to list)
        lazy = [await first_result(lazy_settings, cache) for _ in range(starts)]
    for label, runs in (("eager stdio", eager), ("lazy stdio (cached list)", lazy)):
        listed = statistics.median(r[0] for r in runs)
        first = statistics.median(r[1] for r in runs)
        print(f"{label:<26} tool list after {listed * 1000:7.1f} ms   first result after {first * 1000:7.1f} ms")

    print()
    source_stdio = await through_source(STDIO, calls)
    bare_stdio = await bare_client(None, calls)
    print(f"stdio  McpToolSource   {ms(source_stdio)}")
    print(f"stdio  bare mcp.Client {ms(bare_stdio)}")
    process, url = start_http_server()
    try:
        source_http = await through_source(McpServerSettings(url=url), calls)
        bare_http = await bare_client(url, calls)
    finally:
        process.terminate()
        process.wait(10)
    print(f"http   McpToolSource   {ms(source_http)}")
    print(f"http   bare mcp.Client {ms(bare_http)}")
    for label, ours, bare in (("stdio", source_stdio, bare_stdio), ("http", source_http, bare_http)):
        delta = (statistics.median(ours) - statistics.median(bare)) * 1000
        print(f"overhead per call ({label}): {delta:+.3f} ms (median difference)")


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--starts", type=int, default=3)
    args = parser.parse_args()
    asyncio.run(main(args.calls, args.starts))
