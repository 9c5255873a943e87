"""Results sent once: ``@modelcontextprotocol/server-filesystem`` read through a whole run.

Its ``read_text_file`` answers with the text *and* ``structuredContent: {"content": <the text>}``,
and ``read_media_file`` with an image block *and* the same block again as structured content. The
model (a local OpenAI wire server) must receive a 10 KB file once, and a small PNG as an image,
never as base64 text. The request bodies it received are checked.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from quorum.application.execution import RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.source import McpToolSource
from quorum.infrastructure.tools.executor import PluginToolExecutor
from quorum.infrastructure.tools.settings import ToolsSettings
from tests.fakes import JsonSchema, RecordingObserver, ScriptedReviewer
from tests.integration.mcp.test_mcp_content import OneProvider
from tests.integration.providers.conftest import openai_gateway
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

FILESYSTEM = (
    Path(__file__).resolve().parents[2] / ".npm/node_modules/@modelcontextprotocol/server-filesystem/dist/index.js"
)
INSTALL = "npm install --prefix tests/.npm @modelcontextprotocol/server-filesystem"
PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg=="
)


def _filesystem(root: Path) -> McpServerSettings:
    if not FILESYSTEM.is_file() or shutil.which("node") is None:
        if os.environ.get("CI"):
            pytest.fail(f"server-filesystem is not installed ({FILESYSTEM}); .ci/run installs it: {INSTALL}")
        pytest.skip(f"server-filesystem is not installed; run: {INSTALL}")
    return McpServerSettings(command="node", args=[str(FILESYSTEM), str(root)], risk="low")


@pytest.fixture
def wire() -> Iterator[ScriptedHttpServer]:
    server = openai_server()
    try:
        yield server
    finally:
        server.stop()


async def test_a_text_file_reaches_the_model_once_and_a_png_as_an_image(
    tmp_path: Path, wire: ScriptedHttpServer
) -> None:
    root = tmp_path / "files"
    root.mkdir()
    lines = [f"line {i:04d}: the quick brown fox jumps over the lazy dog, MARK-{i:04d}" for i in range(155)]
    text = "\n".join(lines)
    assert 10_000 <= len(text.encode()) <= 11_000
    (root / "notes.txt").write_text(text)
    (root / "dot.png").write_bytes(PNG)

    source = McpToolSource({"fs": _filesystem(root)}, workspace=root)  # its roots: the files
    executor = PluginToolExecutor([source], ToolsSettings())
    gateway = openai_gateway(wire)
    wire.enqueue(
        Turn(
            calls=(
                Call("c1", "mcp__fs__read_text_file", {"path": str(root / "notes.txt")}),
                Call("c2", "mcp__fs__read_media_file", {"path": str(root / "dot.png")}),
            )
        ),
        Turn(text="read both"),
    )
    agent = RunAgent(
        gateway=OneProvider(gateway),
        executor=executor,
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=RecordingObserver(),
    )
    try:
        result = await agent.execute(RunRequest(task="read the files", model_id="local:m"))
    finally:
        await executor.aclose()
        await gateway.aclose()
    assert result.stop_reason == "end_turn", result.detail
    body = json.dumps(wire.bodies()[1])  # the request that carries both results, as sent
    messages = wire.bodies()[1]["messages"]
    tool_text = next(m["content"] for m in messages if m.get("tool_call_id") == "c1")
    assert tool_text == text  # once, and nothing else
    assert body.count("MARK-0154") == 1 and body.count("MARK-0000") == 1
    tool_media = next(m["content"] for m in messages if m.get("tool_call_id") == "c2")
    assert tool_media.startswith("[image: image/png") and "structured" not in tool_media
    png = base64.b64encode(PNG).decode()
    images = [
        p["image_url"]["url"]
        for m in messages
        if m["role"] == "user" and isinstance(m["content"], list)
        for p in m["content"]
        if p.get("type") == "image_url"
    ]
    assert images == [f"data:image/png;base64,{png}"]  # as an image part
    assert body.count(png[:24]) == 1  # the only base64 is the image part itself
