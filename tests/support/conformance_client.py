"""The client the MCP conformance suite runs for each client scenario: Quorum's MCP client, not the SDK's.

Contract (``@modelcontextprotocol/conformance client --command``): the server URL is the last
argument, ``MCP_CONFORMANCE_SCENARIO`` names the scenario, ``MCP_CONFORMANCE_CONTEXT`` (JSON) carries
scenario data (pre-registered client credentials…). Exit 0 when the session went through.

Every scenario goes through ``McpToolSource`` (one ``[mcp.servers.conformance]`` HTTP server, tokens
in a temporary ``McpTokenStore``): list the tools, call the scenario's tool. Authorization-code
scenarios first run ``quorum mcp login``'s flow (``oauth.login``) with an HTTP client playing the
browser: it follows the authorization server's redirect to Quorum's loopback listener. When a call
is refused for want of scope (a run never logs in; its error names ``quorum mcp login``), the
wrapper does what the user is told: logs in again (Quorum then asks for the larger scope) and
calls again. Elicitation is answered as the Python API's ``on_elicitation`` callback of a person
who accepts without typing anything (the schema's defaults apply, as Enter does on the terminal).
"""

from __future__ import annotations

import asyncio
import json
import os
import sys
import tempfile
from pathlib import Path
from typing import Any

from quorum.domain.elicitation import ElicitationAnswer, ElicitationRequest
from quorum.domain.tools import ToolCall
from quorum.infrastructure.mcp.auth.oauth import login, login_hint
from quorum.infrastructure.mcp.auth.settings import McpAuthSettings
from quorum.infrastructure.mcp.auth.store import McpTokenStore
from quorum.infrastructure.mcp.client_features import ClientSide
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


async def accept_defaults(request: ElicitationRequest) -> ElicitationAnswer:
    """A person who accepts the form as offered: every field left to its default."""
    return ElicitationAnswer(action="accept")


async def run(scenario: str, url: str, context: dict[str, Any], data: Path) -> int:
    auth = auth_settings(scenario, context)
    store = McpTokenStore(data, "file")
    env = dict(os.environ)
    logs_in = scenario.startswith("auth/") and auth.grant == "authorization_code"
    if logs_in:
        await login(SERVER, url, auth, store, env, follow_as_browser, timeout=45)
    source = McpToolSource(
        {SERVER: McpServerSettings(url=url, auth=auth, timeout_seconds=45)},
        env=env,
        token_store=store,
        client_side=ClientSide(on_elicitation=accept_defaults),
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
        if logs_in and outcome.is_error and login_hint(SERVER) in outcome.output:
            print(f"{name}: {outcome.output[:300]}; logging in again", file=sys.stderr)
            await login(SERVER, url, auth, store, env, follow_as_browser, timeout=45)
            outcome = await source.execute(ToolCall(native_id="2", name=offered[name], arguments=arguments))
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
