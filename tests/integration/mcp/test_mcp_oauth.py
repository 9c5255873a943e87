"""OAuth for HTTP MCP servers, end to end: login, a run with the token, refresh, logout.

The server is ``tests/support/mcp_servers/oauth_server.py``: a real streamable-HTTP MCP server that
is its own OAuth 2.1 authorization server (the ``mcp`` SDK's server-side auth: metadata, dynamic
registration, PKCE, refresh). ``quorum mcp login`` runs as a subprocess with ``QUORUM_NO_BROWSER``;
the test plays the browser with an HTTP client that follows the authorization redirect to Quorum's
loopback listener. Tokens must never appear in any output, ``--json`` or the run log.
"""

from __future__ import annotations

import json
import os
import stat
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx2
import pytest

from tests.e2e.conftest import Cli, Result, isolated_env
from tests.support.net import free_port, wait_listening

SERVER = Path(__file__).resolve().parents[2] / "support" / "mcp_servers" / "oauth_server.py"


@pytest.fixture(scope="module")
def oauth_server() -> Iterator[str]:
    """The OAuth-protected MCP server's base URL (``/mcp`` is the endpoint)."""
    port = free_port()
    process = subprocess.Popen(
        [sys.executable, str(SERVER), str(port)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
    )
    try:
        wait_listening(process, port, "OAuth test server")
        yield f"http://127.0.0.1:{port}"
    finally:
        process.terminate()
        process.wait(10)


@pytest.fixture
def cli(tmp_path: Path, oauth_server: str) -> Cli:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = isolated_env(tmp_path) | {"QUORUM_KEYS_BACKEND": "file", "QUORUM_NO_BROWSER": "1"}
    (workspace / "quorum.toml").write_text(f'[mcp.servers.sec]\nurl = "{oauth_server}/mcp"\n')
    return Cli(workspace, env)


def token_file(cli: Cli) -> Path:
    return Path(cli.env["XDG_DATA_HOME"]) / "quorum" / "mcp-auth" / "sec.json"


def stored(cli: Cli) -> dict[str, Any]:
    return dict(json.loads(token_file(cli).read_text()))


def login(cli: Cli) -> Result:
    """``quorum mcp login sec``, with an HTTP client following the printed URL like a browser."""
    process = subprocess.Popen(
        [sys.executable, "-m", "quorum.cli.main", "mcp", "login", "sec"],
        cwd=cli.workspace,
        env=cli.env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    assert process.stderr is not None
    seen = []
    for line in process.stderr:  # blocks until the CLI prints the URL (or exits)
        seen.append(line)
        if line.strip().startswith("http://"):
            page = httpx2.get(line.strip(), follow_redirects=True, timeout=30)
            assert page.status_code == 200 and "Logged in" in page.text
            break
    stdout, rest = process.communicate(timeout=60)
    return Result(process.returncode, stdout, "".join(seen) + rest)


def assert_no_tokens(cli: Cli, *texts: str) -> None:
    tokens = stored(cli)["tokens"]
    for secret in (tokens["access_token"], tokens["refresh_token"]):
        for text in texts:
            assert secret not in text


def run_whoami(cli: Cli) -> Result:
    script = {"turns": [{"tool_calls": [{"name": "mcp__sec__whoami", "arguments": {}, "id": "w"}]}, {"text": "ok"}]}
    cli.write("s.json", json.dumps(script))
    return cli("run", "--model", "scripted:s.json", "--json", "who am I")


def tool_output(result: Result) -> str:
    outputs = [e for e in result.events() if e["type"] == "tool_result" and e.get("call_id", "w") == "w"]
    assert outputs, result.stdout
    return json.dumps(outputs[-1])


def test_login_run_refresh_logout(cli: Cli, oauth_server: str) -> None:
    before = cli("mcp", "check", "sec")
    assert before.code == 1
    assert "needs authorization" in before.stdout + before.stderr
    assert "quorum mcp login sec" in before.stdout + before.stderr
    assert "Server returned an error response" not in before.stdout + before.stderr

    logged_in = login(cli)
    assert logged_in.code == 0, logged_in.stderr
    assert "logged in to sec: 1 tools" in logged_in.stdout
    assert stat.S_IMODE(os.stat(token_file(cli)).st_mode) == 0o600
    assert stat.S_IMODE(os.stat(token_file(cli).parent).st_mode) == 0o700
    first = stored(cli)["tokens"]["access_token"]
    assert_no_tokens(cli, logged_in.stdout, logged_in.stderr)

    run = run_whoami(cli)
    assert run.code == 0, run.stderr
    assert "authorized" in tool_output(run)
    checked = cli("mcp", "check", "sec", "--json")
    assert checked.code == 0 and json.loads(checked.stdout)["ok"] is True
    logs = cli("logs", "show", "--json")
    assert_no_tokens(cli, run.stdout, run.stderr, checked.stdout, checked.stderr, logs.stdout, logs.stderr)

    # The access token expires: on the server, and for the client (its stored expiry passes).
    assert httpx2.post(f"{oauth_server}/test/expire", timeout=30).status_code == 200
    record = stored(cli)
    record["expires_at"] = time.time() - 60
    token_file(cli).write_text(json.dumps(record))
    refreshed_before = httpx2.get(f"{oauth_server}/test/stats", timeout=30).json().get("refresh_token", 0)
    again = run_whoami(cli)
    assert again.code == 0, again.stderr
    assert "authorized" in tool_output(again)
    assert httpx2.get(f"{oauth_server}/test/stats", timeout=30).json()["refresh_token"] == refreshed_before + 1
    assert stored(cli)["tokens"]["access_token"] != first
    assert_no_tokens(cli, again.stdout, again.stderr)

    out = cli("mcp", "logout", "sec")
    assert out.code == 0 and "logged out of sec" in out.stdout
    assert not token_file(cli).exists()
    after = cli("mcp", "check", "sec")
    assert after.code == 1 and "quorum mcp login sec" in after.stdout + after.stderr
    assert "no tokens stored for sec" in cli("mcp", "logout", "sec").stdout


def test_a_run_reports_the_login_command(cli: Cli) -> None:
    result = run_whoami(cli)
    text = result.stdout + result.stderr
    assert "needs authorization" in text and "quorum mcp login sec" in text
    assert "Server returned an error response" not in text


def test_stored_tokens_are_redacted_secrets(cli: Cli, monkeypatch: pytest.MonkeyPatch) -> None:
    assert login(cli).code == 0
    access = stored(cli)["tokens"]["access_token"]
    from quorum.composition.container import build_container
    from quorum.composition.options import AppOptions

    for name, value in cli.env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.chdir(cli.workspace)
    container = build_container(AppOptions(config_path=cli.workspace / "quorum.toml"))
    assert container.secrets().redactor().text(f"x {access} y") == "x [REDACTED:mcp.sec.access_token] y"


def test_tokens_are_not_sent_to_another_url(tmp_path: Path) -> None:
    import asyncio

    from mcp.shared.auth import OAuthToken

    from quorum.infrastructure.mcp.auth.store import McpTokenStore

    store = McpTokenStore(tmp_path / "auth", "file")
    asyncio.run(store.storage("s", "https://one.example/mcp").set_tokens(OAuthToken(access_token="secret-token-1")))
    assert asyncio.run(store.storage("s", "https://one.example/mcp").get_tokens()) is not None
    assert asyncio.run(store.storage("s", "https://evil.example/mcp").get_tokens()) is None
