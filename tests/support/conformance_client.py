"""The client the MCP conformance suite runs for each client scenario: Quorum's MCP client, not the SDK's.

Contract (``@modelcontextprotocol/conformance client --command``): the server URL is the last
argument, ``MCP_CONFORMANCE_SCENARIO`` names the scenario, ``MCP_CONFORMANCE_CONTEXT`` (JSON) carries
scenario data (pre-registered client credentials…). Exit 0 when the session went through.

Every scenario goes through ``McpToolSource`` (one ``[mcp.servers.conformance]`` HTTP server, tokens
in a temporary ``McpTokenStore``): list the tools, call the scenario's tool. Authorization-code
scenarios first run ``quorum mcp login``'s flow (``oauth.login``) with an HTTP client playing the
browser: it follows the authorization server's redirect to Quorum's loopback listener.
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from quorum.domain.tools import ToolCall
from quorum.infrastructure.mcp.auth.oauth import login
from quorum.infrastructure.mcp.auth.settings import McpAuthSettings
from quorum.infrastructure.mcp.auth.store import McpTokenStore
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.source import McpToolSource

SERVER = "conformance"
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
SCENARIO_TOOLS = {
    "tools_call": ("add_numbers", {"a": 5, "b": 3}),
    "sse-retry": ("test_reconnection", {}),
    "elicitation-sep1034-client-defaults": ("test_client_elicitation_defaults", {}),
}


async def follow_as_browser(url: str) -> None:
    """Play the browser: GET the authorization URL and follow redirects to the loopback listener."""
    import httpx2

    async with httpx2.AsyncClient(follow_redirects=True, timeout=30) as http:
        await http.get(url)


def auth_settings(scenario: str, context: dict[str, Any]) -> McpAuthSettings:
    """The ``[mcp.servers.conformance.auth]`` table a user would write for this scenario."""
    if scenario.startswith("auth/client-credentials"):
        return McpAuthSettings(
            grant="client_credentials",
            client_id=context.get("client_id"),
            client_secret=context.get("client_secret"),
        )
    return McpAuthSettings(
        client_id=context.get("client_id"),
        client_secret=context.get("client_secret"),
        client_metadata_url=CLIENT_METADATA_URL,
    )


async def run(scenario: str, url: str, context: dict[str, Any], data: Path) -> int:
    auth = auth_settings(scenario, context)
    store = McpTokenStore(data, "file")
    env = dict(os.environ)
    if scenario.startswith("auth/") and auth.grant == "authorization_code":
        await login(SERVER, url, auth, store, env, follow_as_browser, timeout=45)
    source = McpToolSource(
        {SERVER: McpServerSettings(url=url, auth=auth, timeout_seconds=45)}, env=env, token_store=store
    )
    try:
        tools = await source.list_tools()
        offered = {t.name.removeprefix(f"mcp__{SERVER}__"): t.name for t in tools if t.name.startswith("mcp__")}
        name, arguments = SCENARIO_TOOLS.get(scenario, (next(iter(offered), None), {}))
        problems = list(getattr(source, "problems", []))
        if problems:
            print(f"problems: {problems}", file=sys.stderr)
            return 1
        if name is None:
            return 0
        if name not in offered:
            print(f"tool {name!r} not offered (offered: {sorted(offered)})", file=sys.stderr)
            return 1
        outcome = await source.execute(ToolCall(native_id="1", name=offered[name], arguments=arguments))
        print(f"{name}: error={outcome.is_error} {outcome.output[:300]}", file=sys.stderr)
        return 1 if outcome.is_error and not scenario.startswith("auth/") else 0
    finally:
        await source.aclose()


def main() -> None:
    url = sys.argv[-1]
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory() as data:
        sys.exit(asyncio.run(run(scenario, url, context, Path(data))))


if __name__ == "__main__":
    main()
