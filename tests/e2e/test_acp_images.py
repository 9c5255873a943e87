"""Images in an editor's prompt reach the model as image input (the real OpenAI SDK against the local wire server)."""

from __future__ import annotations

import base64
import json
import struct
import zlib

import pytest

from tests.e2e.acp_client import RecordingClient, RequestError, agent, within
from tests.e2e.conftest import Cli
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Turn

from acp import image_block, text_block  # isort: skip  (after acp_client, which skips without the SDK)


def _png() -> str:
    """A 1x1 red PNG, base64."""

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    raw = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 1, 1, 8, 2, 0, 0, 0))
    raw += chunk(b"IDAT", zlib.compress(b"\x00\xff\x00\x00")) + chunk(b"IEND", b"")
    return base64.b64encode(raw).decode()


async def test_a_prompt_image_reaches_the_model_as_an_image_url_part(cli: Cli, openai_wire: ScriptedHttpServer) -> None:
    cli.write("quorum.toml", f'[providers.local]\ntype = "openai"\nbase_url = "{openai_wire.url}/v1"\n')
    cli.env["OPENAI_API_KEY"] = "sk-test"
    openai_wire.enqueue(Turn(text="A red pixel."))
    png = _png()
    client = RecordingClient()
    async with agent(cli, client, "--model", "local:agent") as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        blocks = [text_block("what is this?"), image_block(png, "image/png")]
        response = await within(conn.prompt(session_id=session.session_id, prompt=blocks))
        assert response.stop_reason == "end_turn"
        tiff = [text_block("and this?"), image_block(png, "image/tiff")]
        with pytest.raises(RequestError) as refused:  # a type models do not take: refused, the session goes on
            await within(conn.prompt(session_id=session.session_id, prompt=tiff))
        assert refused.value.code == -32602 and "'image/tiff' are not supported" in str(refused.value.data)
    assert client.text() == "A red pixel."
    [request] = openai_wire.requests
    user = [m for m in request.body["messages"] if m["role"] == "user"]
    assert user == [
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "what is this?"},
                {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{png}"}},
            ],
        }
    ]
    assert png not in json.dumps([m for m in request.body["messages"] if m["role"] != "user"])  # never as text
