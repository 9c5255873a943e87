"""The MCP OAuth token store and the loopback redirect listener, on real files and real sockets."""

from __future__ import annotations

import asyncio
import os
import stat
from pathlib import Path

import httpx2
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken

from quorum.infrastructure.mcp.auth.loopback import LoopbackRedirect
from quorum.infrastructure.mcp.auth.store import McpTokenStore


async def test_records_are_0600_per_server_and_logout_forgets_them(tmp_path: Path) -> None:
    store = McpTokenStore(tmp_path / "mcp-auth", "file")
    storage = store.storage("notes", "https://notes.example/mcp")
    await storage.set_client_info(OAuthClientInformationFull(client_id="c1", client_secret="client-secret-1"))
    await storage.set_tokens(OAuthToken(access_token="access-token-1", refresh_token="refresh-token-1", expires_in=60))
    assert stat.S_IMODE(os.stat(store.path("notes")).st_mode) == 0o600
    assert store.secrets(["notes", "other"]) == {
        "mcp.notes.access_token": "access-token-1",
        "mcp.notes.refresh_token": "refresh-token-1",
        "mcp.notes.client_secret": "client-secret-1",
    }
    info = await storage.get_client_info()
    assert info is not None and info.client_id == "c1"  # tokens did not overwrite the registration
    assert storage.expires_at() is not None
    assert store.remove("notes") and not store.path("notes").exists()
    assert await storage.get_tokens() is None
    assert not store.remove("notes")


def test_odd_server_names_do_not_escape_the_folder(tmp_path: Path) -> None:
    store = McpTokenStore(tmp_path / "mcp-auth", "file")
    assert store.path("../../etc/passwd").parent == tmp_path / "mcp-auth"
    assert store.path("..").parent == tmp_path / "mcp-auth"


async def test_loopback_takes_the_callback_and_ignores_other_paths() -> None:
    async with LoopbackRedirect() as redirect, httpx2.AsyncClient() as http:
        assert redirect.redirect_uri.startswith("http://127.0.0.1:")
        other = await http.get(redirect.redirect_uri.replace("/callback", "/favicon.ico"))
        assert other.status_code == 404
        page = await http.get(redirect.redirect_uri, params={"code": "abc", "state": "xyz"})
        assert page.status_code == 200
        assert await asyncio.wait_for(redirect.wait(), 30) == {"code": "abc", "state": "xyz"}


async def test_a_wanted_scope_survives_new_tokens_registration_and_clearing(tmp_path: Path) -> None:
    store = McpTokenStore(tmp_path, "file")
    storage = store.storage("notes", "http://127.0.0.1:1/mcp")
    storage.want_scope("mcp:basic mcp:write")
    storage.want_scope("mcp:write mcp:admin")  # a union, in order, without repeats
    await storage.set_tokens(OAuthToken(access_token="a", token_type="Bearer", scope="mcp:basic"))
    await storage.set_client_info(
        OAuthClientInformationFull(client_id="c", redirect_uris=["http://127.0.0.1:9/callback"])  # type: ignore[list-item]
    )
    storage.clear_tokens()
    record = store.load("notes")
    assert record is not None and record.scope == "mcp:basic mcp:write mcp:admin"
    assert record.tokens is None and record.client_info is not None
    assert store.remove("notes") and store.load("notes") is None  # logout forgets it too
