"""``quorum acp`` end to end: initialize, streaming a prompt, modes, commands, stop reasons, bad input."""

from __future__ import annotations

import pytest

from tests.e2e.acp_client import (
    RecordingClient,
    RequestError,
    agent,
    prompt,
    quorum_toml,
    stderr_of,
    within,
    write_script,
)
from tests.e2e.conftest import Cli


async def test_initialize_announces_quorum_and_what_it_takes(cli: Cli) -> None:
    client = RecordingClient()
    async with agent(cli, client) as conn:
        answer = await within(conn.initialize(protocol_version=1))
    assert answer.protocol_version == 1
    assert answer.agent_info.name == "quorum" and answer.agent_info.version
    caps = answer.agent_capabilities
    assert caps.load_session is True
    assert caps.mcp_capabilities.http is True and caps.mcp_capabilities.sse is False
    assert caps.prompt_capabilities.image is True
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


async def test_new_session_announces_modes_and_slash_commands_and_a_command_answers(cli: Cli) -> None:
    client = RecordingClient()
    async with agent(cli, client, "--model", "test") as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        [announced] = await client.wait_for("available_commands_update")  # sent after the response
        assert {c.name for c in announced.available_commands} == {"tools", "review", "usage", "model", "plan"}
        assert session.modes.current_mode_id == "interactive"
        assert await prompt(conn, session.session_id, "/tools") == "end_turn"
        assert "`write_file` (high risk)" in client.text() and "`read_file` (low risk)" in client.text()
        client.clear()
        assert await prompt(conn, session.session_id, "/review") == "end_turn"
        assert "Session mode: interactive" in client.text()
    assert cli("logs", "list", "--json").stdout.strip() == ""  # commands are not runs


async def test_bad_input_gets_errors_and_the_agent_goes_on(cli: Cli) -> None:
    client = RecordingClient()
    async with agent(cli, client, "--model", "test") as conn:
        with pytest.raises(RequestError) as unknown_method:
            await within(conn._conn.send_request("session/frobnicate", {}))
        assert unknown_method.value.code == -32601
        with pytest.raises(RequestError) as unknown_session:
            await prompt(conn, "no-such-session", "hello")
        assert "unknown session" in str(unknown_session.value.data)
        with pytest.raises(RequestError) as bad_cwd:
            await within(conn.new_session(cwd="relative/dir", mcp_servers=[]))
        assert "absolute" in str(bad_cwd.value.data)
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        with pytest.raises(RequestError) as bad_mode:
            await within(conn.set_session_mode(session_id=session.session_id, mode_id="yolo"))
        assert "unknown mode" in str(bad_mode.value.data)
        assert await prompt(conn, session.session_id, "still there?") == "end_turn"  # the agent went on
    assert "Traceback" not in stderr_of(cli)


async def test_with_no_model_the_advice_names_the_editors_ways(cli: Cli) -> None:
    client = RecordingClient()
    async with agent(cli, client) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        with pytest.raises(RequestError) as refused:
            await prompt(conn, session.session_id, "hello")
        assert await prompt(conn, session.session_id, "/model") == "end_turn"
    said = str(refused.value.data)
    assert "Name one with the /model command" in said and "quorum acp --model provider:model" in said
    assert "/model scripted:demo" in said and "Name one with --model" not in said
    assert "No model: no model configured. Name one with the /model command" in client.text()


@pytest.mark.parametrize(
    ("config", "turns", "mode", "stop"),
    [
        ("", [{"text": "cut", "stop_reason": "max_tokens"}], None, "max_tokens"),
        (
            '[agent]\nmax_tool_turns = 1\non_turn_limit = "stop"\n',
            [{"tool_calls": [{"name": "list_dir", "arguments": {}}]}] * 2,
            None,
            "max_turn_requests",
        ),
        (
            "[agent]\nmax_rejections = 1\n",
            [{"tool_calls": [{"name": "write_file", "arguments": {"path": "x", "content": "x"}}]}, {"text": "x"}],
            "auto_reject",
            "refusal",
        ),
    ],
    ids=["max_tokens", "max_turn_requests", "refusal"],
)
async def test_stop_reasons_map_to_acp(cli: Cli, config: str, turns: list, mode: str | None, stop: str) -> None:
    if config:
        quorum_toml(cli, config)
    model = write_script(cli, turns)
    client = RecordingClient()
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        if mode is not None:
            await within(conn.set_session_mode(session_id=session.session_id, mode_id=mode))
        assert await prompt(conn, session.session_id, "go") == stop
    assert "(quorum: " in client.text()  # why it stopped, said in the editor


async def test_reasoning_reaches_the_editor_as_a_thought_apart_from_the_answer(cli: Cli) -> None:
    model = write_script(cli, [{"reasoning": "Weighing it up.", "text": "The answer."}])
    client = RecordingClient()
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "think") == "end_turn"
    assert client.text() == "The answer."
    assert [u.content.text for u in client.of("agent_thought_chunk")] == ["Weighing it up."]
