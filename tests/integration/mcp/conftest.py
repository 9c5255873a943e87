from __future__ import annotations

import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from quorum.domain.tools import ToolCall, ToolResult
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.source import McpToolSource
from tests.support.net import free_port, wait_listening


@pytest.fixture(autouse=True)
def _own_data_dir(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Each test its own data dir: pins, tokens and tool-list caches never touch the user's."""
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))


PROBE = Path(__file__).resolve().parents[2] / "support" / "mcp_servers" / "probe_server.py"


def probe(*args: str, **settings: Any) -> McpServerSettings:
    """Settings starting the probe server over stdio."""
    return McpServerSettings(command=sys.executable, args=[str(PROBE), *args], **settings)


async def call(source: McpToolSource, tool: str, /, **arguments: Any) -> ToolResult:
    return await source.execute(ToolCall(native_id="c", name=tool, arguments=arguments))


def start_http_probe(url: str | None = None, *options: str) -> tuple[subprocess.Popen[bytes], str]:
    """The probe server over streamable HTTP (on ``url``'s port, or a free one), once it listens."""
    port = int(url.rsplit(":", 1)[1].split("/")[0]) if url else free_port()
    process = subprocess.Popen(
        [sys.executable, str(PROBE), "--http", str(port), *options],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    wait_listening(process, port, "probe HTTP server", timeout=30)
    return process, f"http://127.0.0.1:{port}/mcp"


@pytest.fixture(scope="module")
def http_probe_url() -> Iterator[str]:
    """The probe server over streamable HTTP on 127.0.0.1, for the whole module."""
    process, url = start_http_probe()
    try:
        yield url
    finally:
        process.terminate()
        process.wait(10)
