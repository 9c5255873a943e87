"""``quorum acp`` runs: cancel mid-tool, a client's MCP server, ``session/load``, and a clean stdout."""

from __future__ import annotations

import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.acp_client import (
    DEADLINE,
    EnvVariable,
    HttpHeader,
    HttpMcpServer,
    McpServerStdio,
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
from tests.e2e.faults.harness import reap_leftovers
from tests.support.net import free_port, wait_listening

PROBE = Path(__file__).resolve().parents[1] / "support" / "mcp_servers" / "probe_server.py"


async def test_cancel_mid_tool_kills_the_command_and_the_session_goes_on(cli: Cli) -> None:
    quorum_toml(cli, '[tools.sandbox]\nmode = "off"\n')
    slow = {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch started && sleep 300"}, "id": "s1"}]}
    model = write_script(cli, [slow, {"text": "still here"}])
    client = RecordingClient(answers=["allow_once"])
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        turn = asyncio.ensure_future(prompt(conn, session.session_id, "wait a long time"))
        end = time.monotonic() + DEADLINE
        while not (cli.workspace / "started").exists():  # the command runs
            assert time.monotonic() < end and not turn.done(), stderr_of(cli)
            await asyncio.sleep(0.02)
        await conn.cancel(session_id=session.session_id)
        assert await within(turn) == "cancelled"
        reap_leftovers(cli.workspace, wait=30.0)  # fails if the command (or its shell) is still running
        failed = [u for u in client.of("tool_call_update") if u.status == "failed"]
        assert [u.tool_call_id for u in failed] == ["s1"]
        client.clear()
        assert await prompt(conn, session.session_id, "are you there?") == "end_turn"
        assert client.text() == "still here"  # a valid conversation: the cancelled call was answered


async def test_a_client_mcp_server_is_offered_beside_the_configured_ones(cli: Cli) -> None:
    call = {"tool_calls": [{"name": "mcp__probe__fast", "arguments": {"text": "hi"}, "id": "m1"}]}
    leak = {"tool_calls": [{"name": "mcp__probe__getenv", "arguments": {"name": "PROBE_TOKEN"}, "id": "m2"}]}
    model = write_script(cli, [call, {"text": "echoed"}, leak, {"text": "redacted"}])
    client = RecordingClient(answers=["allow_once", "allow_once"])
    secret = "s3cr3t-client-token-value"
    server = McpServerStdio(
        name="probe", command=sys.executable, args=[str(PROBE)], env=[EnvVariable(name="PROBE_TOKEN", value=secret)]
    )
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[server]))
        assert await prompt(conn, session.session_id, "echo hi") == "end_turn"
        [start] = client.of("tool_call")
        assert (start.tool_call_id, start.title, start.kind) == ("m1", "probe: fast", "other")
        [asked] = client.permissions  # its tools are high risk, as a configured server's
        assert asked[0].tool_call_id == "m1"
        done = [u for u in client.of("tool_call_update") if u.status == "completed"]
        assert [u.tool_call_id for u in done] == ["m1"] and done[0].content[-1].content.text == "echo: hi"
        client.clear()
        assert await prompt(conn, session.session_id, "/tools") == "end_turn"
        assert "`mcp__probe__fast`" in client.text()
        client.clear()
        assert await prompt(conn, session.session_id, "show the token") == "end_turn"
        [got] = [u for u in client.of("tool_call_update") if u.status == "completed"]
        assert secret not in got.content[-1].content.text and "REDACTED" in got.content[-1].content.text
    logged = cli("logs", "search", secret)  # the client's MCP env is a known secret, as a configured one's
    assert logged.code == 1 and "no match" in logged.stderr, logged.stdout
    assert cli("logs", "search", "REDACTED").code == 0  # the result was recorded, redacted


async def test_a_client_mcp_server_over_http(cli: Cli) -> None:
    import subprocess

    port = free_port()
    probe = subprocess.Popen(
        [sys.executable, str(PROBE), "--http", str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_listening(probe, port, "probe HTTP server", timeout=DEADLINE)
        call = {"tool_calls": [{"name": "mcp__web__fast", "arguments": {"text": "over http"}, "id": "h1"}]}
        model = write_script(cli, [call, {"text": "echoed"}])
        server = HttpMcpServer(
            type="http", name="web", url=f"http://127.0.0.1:{port}/mcp", headers=[HttpHeader(name="X-Probe", value="1")]
        )
        client = RecordingClient(answers=["allow_once"])
        async with agent(cli, client, "--model", model) as conn:
            session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[server]))
            assert await prompt(conn, session.session_id, "echo") == "end_turn"
        done = [u for u in client.of("tool_call_update") if u.status == "completed"]
        assert [u.tool_call_id for u in done] == ["h1"] and done[0].content[-1].content.text == "echo: over http"
    finally:
        probe.terminate()
        probe.wait(DEADLINE)


async def test_session_load_replays_the_conversation_then_continues_it(cli: Cli) -> None:
    cli.write("a.txt", "alpha\n")
    model = write_script(
        cli,
        [
            {"text": "Reading.", "tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}, "id": "r1"}]},
            {"text": "It says alpha."},
            {"text": "Second answer."},
        ],
    )
    first = RecordingClient()
    async with agent(cli, first, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "what is in a.txt?") == "end_turn"
    session_id = session.session_id

    later = RecordingClient()
    async with agent(cli, later, "--model", model) as conn:  # a new process: only the run log remembers
        loaded = await within(conn.load_session(cwd=str(cli.workspace), session_id=session_id, mcp_servers=[]))
        assert loaded.modes.current_mode_id == "interactive"
        kinds = [u.session_update for _, u in later.updates]
        assert kinds[0] == "user_message_chunk"
        assert later.of("user_message_chunk")[0].content.text == "what is in a.txt?"
        assert later.text() == "Reading.It says alpha."
        assert [u.tool_call_id for u in later.of("tool_call")] == ["r1"]
        assert later.of("tool_call_update")[-1].status == "completed"
        later.clear()
        assert await prompt(conn, session_id, "and then?") == "end_turn"
        assert later.text() == "Second answer."  # the scripted model saw the whole conversation
        with pytest.raises(RequestError) as unknown:
            await within(conn.load_session(cwd=str(cli.workspace), session_id="0" * 16, mcp_servers=[]))
        assert "no session" in str(unknown.value.data)
    runs = [json.loads(line) for line in cli("logs", "list", "--json").stdout.splitlines() if line.strip()]
    newest, oldest = runs[0], runs[-1]
    assert oldest["run_id"] == session_id and newest["parent_run_id"] == session_id


async def test_stdout_holds_nothing_but_protocol_messages(cli: Cli, tmp_path: Path) -> None:
    quorum_toml(cli, '[tools.sandbox]\nmode = "off"\n[review]\nhil_mode = "auto_approve"\n')
    noisy = {"tool_calls": [{"name": "run_command", "arguments": {"command": "echo LEAK; echo LEAK >&2"}, "id": "n1"}]}
    model = write_script(cli, [noisy, {"text": "done"}])
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "quorum.cli.main", "acp", "--model", model,
        cwd=cli.workspace, env=cli.env,
        stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip
    assert process.stdin is not None and process.stdout is not None
    lines: list[dict[str, Any]] = []

    async def answer(request_id: int) -> dict[str, Any]:
        while True:
            raw = await within(process.stdout.readline())
            assert raw, "the agent closed stdout"
            message = json.loads(raw)  # every line is JSON…
            assert message["jsonrpc"] == "2.0"  # …and JSON-RPC
            lines.append(message)
            if message.get("id") == request_id and "method" not in message:
                return message

    def send(message: dict[str, Any]) -> None:
        process.stdin.write((json.dumps(message) + "\n").encode())

    try:
        deep = b"[" * 100_000 + b"]" * 100_000  # json.loads raises RecursionError, not ValueError
        deep_object = b'{"a": ' * 100_000 + b"1" + b"}" * 100_000
        known = (b"this is not json", b"[1, 2]", b'"text"', b'{"jsonrpc": "2.0", "id": [7], "result": 1}')
        for malformed in (*known, deep, deep_object):
            process.stdin.write(malformed + b"\n")  # logged and skipped, never fatal
        send({"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": {"protocolVersion": 1}})
        assert (await answer(1))["result"]["agentInfo"]["name"] == "quorum"
        new = {"cwd": str(cli.workspace), "mcpServers": []}
        send({"jsonrpc": "2.0", "id": 2, "method": "session/new", "params": new})
        session_id = (await answer(2))["result"]["sessionId"]
        asked = {"sessionId": session_id, "prompt": [{"type": "text", "text": "noise"}]}
        send({"jsonrpc": "2.0", "id": 3, "method": "session/prompt", "params": asked})
        assert (await answer(3))["result"]["stopReason"] == "end_turn"
        send({"jsonrpc": "2.0", "id": 4, "method": "no/such/method", "params": {}})
        assert (await answer(4))["error"]["code"] == -32601
    finally:
        process.stdin.close()
        await within(process.wait())
    assert process.returncode == 0
    assert any(m.get("method") == "session/update" for m in lines)
    assert await process.stdout.read() == b""  # nothing after the last answer either


def test_stray_writes_to_stdout_and_children_land_on_stderr() -> None:
    """The protocol keeps a private stdout: ``print`` and child processes write to stderr instead."""
    import subprocess

    code = (
        "import os\n"
        "from quorum.acp.main import _protocol_streams\n"
        "_, out = _protocol_streams()\n"
        "print('stray print', flush=True)\n"
        "os.system('echo child process')\n"
        "out.write(b'protocol line\\n')\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=DEADLINE, check=True)
    assert done.stdout == "protocol line\n"
    assert "stray print" in done.stderr and "child process" in done.stderr


async def test_an_mcp_server_without_a_cwd_runs_in_the_sessions_workspace(cli: Cli) -> None:
    """Not in the agent's own directory: the editor's project is where the session's tools act."""
    call = {"name": "mcp__probe__record", "arguments": {"path": "where.txt", "text": "here"}, "id": "m1"}
    model = write_script(cli, [{"tool_calls": [call]}, {"text": "recorded"}])
    client = RecordingClient(answers=["allow_once"])
    server = McpServerStdio(name="probe", command=sys.executable, args=[str(PROBE)], env=[])
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[server]))
        assert await prompt(conn, session.session_id, "record where you are") == "end_turn"
    assert (cli.workspace / "where.txt").read_text() == "here\n"
    assert not (cli.workspace.parent / "client" / "where.txt").exists()
