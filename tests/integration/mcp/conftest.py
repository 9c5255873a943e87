from __future__ import annotations

import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quorum.application.ports.tool_executor import ToolOutcome
from quorum.domain.tools import ToolCall
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.source import McpToolSource

PROBE = Path(__file__).resolve().parents[2] / "support" / "mcp_servers" / "probe_server.py"


def probe(*args: str, **settings: Any) -> McpServerSettings:
    """Settings starting the probe server over stdio."""
    return McpServerSettings(command=sys.executable, args=[str(PROBE), *args], **settings)


async def call(source: McpToolSource, tool: str, /, **arguments: Any) -> ToolOutcome:
    return await source.execute(ToolCall(native_id="c", name=tool, arguments=arguments))


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def start_http_probe(url: str | None = None, *options: str) -> tuple[subprocess.Popen[bytes], str]:
    """The probe server over streamable HTTP (on ``url``'s port, or a free one), once it listens."""
    port = int(url.rsplit(":", 1)[1].split("/")[0]) if url else _free_port()
    process = subprocess.Popen(
        [sys.executable, str(PROBE), "--http", str(port), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 30
    while True:  # wait for the listening socket (a readiness condition, not a timed sleep)
        if process.poll() is not None:
            raise RuntimeError(f"probe HTTP server exited with {process.returncode}")
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            return process, f"http://127.0.0.1:{port}/mcp"
        except OSError:
            if time.monotonic() > deadline:
                process.kill()
                raise
            time.sleep(0.05)


@pytest.fixture(scope="module")
def http_probe_url() -> Iterator[str]:
    """The probe server over streamable HTTP on 127.0.0.1, for the whole module."""
    process, url = start_http_probe()
    try:
        yield url
    finally:
        process.terminate()
        process.wait(10)
