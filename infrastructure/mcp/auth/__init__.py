"""OAuth 2.1 for streamable-HTTP MCP servers (the MCP authorization spec, done by the ``mcp`` SDK).

- ``settings.McpAuthSettings`` — ``[mcp.servers.NAME.auth]``.
- ``store.McpTokenStore`` — tokens and client registrations per server (0600 file or keyring).
- ``oauth`` — ``build_auth`` (the httpx Auth a run's connection uses), ``login`` (``quorum mcp
  login``), ``LoginRequired`` (a run met a server that needs a person to log in).
- ``loopback.LoopbackRedirect`` — the 127.0.0.1 listener that receives the login redirect.

Nothing here imports the ``mcp`` SDK at module level.
"""

from quorum.infrastructure.mcp.auth.oauth import LoginRequired, build_auth, login, login_hint, uses_oauth
from quorum.infrastructure.mcp.auth.settings import McpAuthSettings
from quorum.infrastructure.mcp.auth.store import AUTH_SUBDIR, McpTokenStore, open_token_store

__all__ = [
    "AUTH_SUBDIR",
    "LoginRequired",
    "McpAuthSettings",
    "McpTokenStore",
    "build_auth",
    "login",
    "login_hint",
    "open_token_store",
    "uses_oauth",
]
