"""What the model receives for MCP content: real servers, the real executor, the real SDKs on the wire.

The probe server (Python) and ``@modelcontextprotocol/server-everything`` (npm, installed by
``.ci/run`` into ``tests/.npm``) are called through ``PluginToolExecutor``; whole runs go through
``RunAgent`` with the OpenAI and Anthropic SDKs against local wire servers, and the tests assert
the request bodies those servers received.
"""

from __future__ import annotations

import base64
import json
import os
import shutil
from collections.abc import AsyncIterator, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
import pytest_asyncio

from quorum.application.execution import RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.events import ToolResultEvent
from quorum.domain.messages import Message
from quorum.domain.tools import ToolCall
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.source import McpToolSource
from quorum.infrastructure.plugins.contracts import ProviderGateway
from quorum.infrastructure.tools.executor import PluginToolExecutor
from quorum.infrastructure.tools.settings import ToolsSettings
from tests.fakes import JsonSchema, RecordingObserver, ScriptedReviewer
from tests.integration.mcp.conftest import probe
from tests.integration.providers.conftest import anthropic_gateway, openai_gateway
from tests.support.anthropic_server import anthropic_server
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

pytestmark = pytest.mark.asyncio(loop_scope="module")

EVERYTHING = (
    Path(__file__).resolve().parents[2] / ".npm/node_modules/@modelcontextprotocol/server-everything/dist/index.js"
)
INSTALL = "npm install --prefix tests/.npm @modelcontextprotocol/server-everything@2026.8.31"


def _everything() -> McpServerSettings:
    if not EVERYTHING.is_file() or shutil.which("node") is None:
        if os.environ.get("CI"):
            pytest.fail(f"server-everything is not installed ({EVERYTHING}); .ci/run installs it: {INSTALL}")
        pytest.skip(f"server-everything is not installed; run: {INSTALL}")
    return McpServerSettings(command="node", args=[str(EVERYTHING), "stdio"])


@pytest_asyncio.fixture(loop_scope="module", scope="module")
async def source() -> AsyncIterator[McpToolSource]:
    src = McpToolSource({"probe": probe(), "everything": _everything()})
    await src.list_tools()
    assert src.problems == []
    yield src
    await src.aclose()


def executor(source: McpToolSource, **settings: Any) -> PluginToolExecutor:
    return PluginToolExecutor([source], ToolsSettings(**settings))


async def run_tool(source: McpToolSource, name: str, /, **arguments: Any) -> Any:
    tools = executor(source)
    await tools.list_tools()
    return await tools.execute(ToolCall(native_id="c", name=name, arguments=arguments))


# -- content kinds, through the executor ----------------------------------------------------------


async def test_an_image_is_an_image_part_named_in_the_text(source: McpToolSource) -> None:
    outcome = await run_tool(source, "mcp__everything__get-tiny-image")
    assert "[image: image/png, 4 KB]" in outcome.output
    assert [(i.media_type, i.size) for i in outcome.images] == [("image/png", 4033)]
    assert base64.b64decode(outcome.images[0].data).startswith(b"\x89PNG")
    assert "iVBOR" not in outcome.output


async def test_base64_images_in_text_are_cut_out_and_sent_as_images(source: McpToolSource) -> None:
    outcome = await run_tool(source, "mcp__probe__base64_text")
    assert "base64," not in outcome.output and "iVBOR" not in outcome.output
    assert outcome.output.startswith("here: [image: image/png, 70 bytes] (done)")
    assert [(i.media_type, i.size) for i in outcome.images] == [("image/png", 70)]


async def test_images_off_leaves_a_note_and_no_image(source: McpToolSource) -> None:
    tools = executor(source, images="off")
    await tools.list_tools()
    outcome = await tools.execute(ToolCall(native_id="c", name="mcp__everything__get-tiny-image", arguments={}))
    assert outcome.images == ()
    assert '[1 image not shown to the model: [tools] images = "off"]' in outcome.output


async def test_embedded_text_resources_are_inlined_and_blobs_described(source: McpToolSource) -> None:
    embedded = await run_tool(source, "mcp__probe__embedded")
    assert embedded.output == "[resource probe://notes/today (text/plain)]\nbuy milk; call Ada"
    text = await run_tool(source, "mcp__everything__get-resource-reference", resourceType="Text", resourceId=2)
    assert "[resource demo://resource/dynamic/text/2 (text/plain)]\nResource 2: This is a plaintext resource" in (
        text.output
    )


async def test_resource_links_keep_name_title_description_and_uri(source: McpToolSource) -> None:
    linked = await run_tool(source, "mcp__probe__linked")
    assert linked.output.splitlines() == [
        "[resource link today (Today's notes): what to do today <probe://notes/today> text/plain]",
        '(linked resources can be read with mcp_read_resource(server="probe", uri=...))',
    ]
    links = await run_tool(source, "mcp__everything__get-resource-links", count=2)
    assert "[resource link Blob Resource 1: Resource 1: " in links.output
    assert "<demo://resource/dynamic/text/2>" in links.output


async def test_structured_content_is_kept_once(source: McpToolSource) -> None:
    weather = await run_tool(source, "mcp__everything__get-structured-content", location="Chicago")
    assert json.loads(weather.output) == {"temperature": 36, "conditions": "Light rain / drizzle", "humidity": 82}
    probe_weather = await run_tool(source, "mcp__probe__weather", city="Oslo")
    assert json.loads(probe_weather.output) == {"city": "Oslo", "temperature": 21}  # not a second time


async def test_mcp_read_resource_lists_and_reads(source: McpToolSource) -> None:
    tools = {t.name: t for t in await source.list_tools()}
    reader = tools["mcp_read_resource"]
    assert reader.risk.value == "low"
    assert "probe: probe://notes/today (Today's notes, text/plain)" in reader.description
    assert set(reader.input_schema["properties"]["server"]["enum"]) == {"probe", "everything"}  # type: ignore[index]
    listing = await run_tool(source, "mcp_read_resource", server="everything")
    assert "demo://resource/static/document/architecture.md" in listing.output
    notes = await run_tool(source, "mcp_read_resource", server="probe", uri="probe://notes/today")
    assert notes.output == "[resource probe://notes/today (text/plain)]\nbuy milk; call Ada"
    logo = await run_tool(source, "mcp_read_resource", server="probe", uri="probe://logo.png")
    assert [i.media_type for i in logo.images] == ["image/png"]
    missing = await run_tool(source, "mcp_read_resource", server="probe", uri="probe://nope")
    assert missing.is_error and "probe://nope" in missing.output
    unknown = await run_tool(source, "mcp_read_resource", server="ghost", uri="x://y")
    assert unknown.is_error and "servers with resources: " in unknown.output


# -- whole runs: what the provider's wire received -----------------------------------------------


class OneProvider:
    def __init__(self, gateway: ProviderGateway) -> None:
        self.gateway = gateway

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> Any:
        return self.gateway.session(model_id.partition(":")[2], system_prompt, history=history)


@pytest.fixture
def wire(request: pytest.FixtureRequest) -> Iterator[ScriptedHttpServer]:
    server = openai_server() if request.param == "openai" else anthropic_server()
    try:
        yield server
    finally:
        server.stop()


SCRIPT = [
    Turn(
        calls=(
            Call("c1", "mcp__everything__get-tiny-image", {}),
            Call("c2", "mcp__probe__embedded", {}),
        )
    ),
    Turn(text="A logo and a shopping list."),
]


async def _run(source: McpToolSource, server: ScriptedHttpServer, kind: str) -> tuple[list[Any], RecordingObserver]:
    gateway = openai_gateway(server) if kind == "openai" else anthropic_gateway(server)
    server.enqueue(*SCRIPT)
    observer = RecordingObserver()
    agent = RunAgent(
        gateway=OneProvider(gateway),
        executor=executor(source),
        schema=JsonSchema(),
        reviewer=ScriptedReviewer(),
        observer=observer,
    )
    result = await agent.execute(RunRequest(task="what is there?", model_id="local:m"))
    await gateway.aclose()
    assert result.output == "A logo and a shopping list."
    return server.bodies(), observer


@pytest.mark.parametrize("wire", ["anthropic"], indirect=True)
async def test_anthropic_gets_the_image_inside_the_tool_result(source: McpToolSource, wire: ScriptedHttpServer) -> None:
    bodies, observer = await _run(source, wire, "anthropic")
    results = [b for m in bodies[1]["messages"] if isinstance(m["content"], list) for b in m["content"]]
    image_result = next(b for b in results if b.get("tool_use_id") == "c1")
    text, image = image_result["content"]
    assert text["type"] == "text" and "[image: image/png, 4 KB]" in text["text"]
    assert image["type"] == "image" and image["source"]["type"] == "base64"
    assert image["source"]["media_type"] == "image/png"
    assert base64.b64decode(image["source"]["data"]).startswith(b"\x89PNG")
    embedded = next(b for b in results if b.get("tool_use_id") == "c2")
    assert embedded["content"] == "[resource probe://notes/today (text/plain)]\nbuy milk; call Ada"
    _events_carry_no_base64(observer)


@pytest.mark.parametrize("wire", ["openai"], indirect=True)
async def test_openai_gets_the_text_then_a_user_message_with_the_image(
    source: McpToolSource, wire: ScriptedHttpServer
) -> None:
    bodies, observer = await _run(source, wire, "openai")
    messages = bodies[1]["messages"]
    roles = [m["role"] for m in messages]
    assert roles[-3:] == ["tool", "tool", "user"]  # images follow all the tool messages of the turn
    tool_image, tool_embedded, follow_up = messages[-3:]
    assert tool_image["tool_call_id"] == "c1" and "[image: image/png, 4 KB]" in tool_image["content"]
    assert "iVBOR" not in tool_image["content"]
    assert tool_embedded["content"] == "[resource probe://notes/today (text/plain)]\nbuy milk; call Ada"
    kinds = [part["type"] for part in follow_up["content"]]
    assert kinds == ["text", "text", "image_url"]
    assert "c1" in follow_up["content"][1]["text"]
    url = follow_up["content"][2]["image_url"]["url"]
    assert url.startswith("data:image/png;base64,iVBOR")
    _events_carry_no_base64(observer)


def _events_carry_no_base64(observer: RecordingObserver) -> None:
    results = [e for e in observer.events if isinstance(e, ToolResultEvent)]
    assert [e.images for e in results] == [1, 0]
    assert all("iVBOR" not in e.model_dump_json() for e in observer.events)
