"""``quorum acp`` end to end: initialize, streaming a prompt, modes, commands, stop reasons, bad input."""

from __future__ import annotations

import pytest

from tests.e2e.acp_client import RecordingClient, agent, prompt, quorum_toml, stderr_of, within, write_script
from tests.e2e.conftest import Cli

from acp import RequestError  # noqa: E402  (after the skip in acp_client)


async def test_initialize_announces_quorum_and_what_it_takes(cli: Cli) -> None:
    client = RecordingClient()
    async with agent(cli, client) as conn:
        answer = await within(conn.initialize(protocol_version=1))
    assert answer.protocol_version == 1
    assert answer.agent_info.name == "quorum" and answer.agent_info.version
    caps = answer.agent_capabilities
    assert caps.load_session is True
    assert caps.mcp_capabilities.http is True and caps.mcp_capabilities.sse is False
    assert caps.prompt_capabilities.image is False
    assert caps.prompt_capabilities.embedded_context is True


async def test_a_prompt_streams_parallel_reads_and_text(cli: Cli) -> None:
    cli.write("a.txt", "alpha\n")
    cli.write("b.txt", "beta\n")
    model = write_script(
        cli,
        [
            {
                "text": "Reading both.",
                "tool_calls": [
                    {"name": "read_file", "arguments": {"path": "a.txt"}, "id": "r1"},
                    {"name": "read_file", "arguments": {"path": "b.txt"}, "id": "r2"},
                ],
            },
            {"text": "Both read."},
        ],
    )
    client = RecordingClient()
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "read a and b") == "end_turn"
    assert client.text() == "Reading both.Both read."
    starts = {u.tool_call_id: u for u in client.of("tool_call")}
    assert set(starts) == {"r1", "r2"}
    for call_id, name in (("r1", "a.txt"), ("r2", "b.txt")):
        start = starts[call_id]
        assert (start.kind, start.status, start.title) == ("read", "pending", f"Read {name}")
        assert start.locations[0].path == str(cli.workspace / name)
        statuses = [u.status for u in client.of("tool_call_update") if u.tool_call_id == call_id]
        assert statuses == ["in_progress", "completed"]
    done = {u.tool_call_id: u for u in client.of("tool_call_update") if u.status == "completed"}
    assert "alpha" in done["r1"].content[0].content.text and "beta" in done["r2"].content[0].content.text
    kinds = [u.session_update for _, u in client.updates]
    assert kinds.index("tool_call") > kinds.index("agent_message_chunk")  # in the order the run emitted them
    assert client.permissions == []  # low-risk reads ask nothing
