"""A streamable-HTTP MCP server that is also its own OAuth 2.1 authorization server (tests only).

Built on the ``mcp`` SDK's server-side auth (``auth_server_provider``): protected-resource and
authorization-server metadata, dynamic client registration, ``/authorize`` (approves at once and
redirects to the client's ``redirect_uri`` with a code, so an HTTP client can play the browser),
``/token`` (authorization code with PKCE, refresh token). The SDK's token endpoint has no
client-credentials grant: that flow is covered by the conformance suite's scenario.

Test hooks (plain HTTP, no auth): ``POST /test/expire`` makes every access token invalid (the
client must refresh); ``GET /test/stats`` counts issued tokens by grant.

Usage: ``python oauth_server.py PORT``.
"""

from __future__ import annotations

import secrets
import sys
import time
from collections import Counter
from typing import Any

from mcp.server.auth.provider import (
    AccessToken,
    AuthorizationCode,
    AuthorizationParams,
    RefreshToken,
    construct_redirect_uri,
)
from mcp.server.auth.settings import AuthSettings, ClientRegistrationOptions
from mcp.server.mcpserver import MCPServer
from mcp.shared.auth import OAuthClientInformationFull, OAuthToken
from mcp.types import ToolAnnotations
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

ACCESS_SECONDS = 3600


class AutoApproveProvider:
    """In-memory authorization server that approves every authorization request."""

    def __init__(self) -> None:
        self.clients: dict[str, OAuthClientInformationFull] = {}
        self.codes: dict[str, AuthorizationCode] = {}
        self.access: dict[str, AccessToken] = {}
        self.refresh: dict[str, RefreshToken] = {}
        self.issued: Counter[str] = Counter()

    async def get_client(self, client_id: str) -> OAuthClientInformationFull | None:
        return self.clients.get(client_id)

    async def register_client(self, client_info: OAuthClientInformationFull) -> None:
        assert client_info.client_id is not None
        self.clients[client_info.client_id] = client_info

    async def authorize(self, client: OAuthClientInformationFull, params: AuthorizationParams) -> str:
        code = secrets.token_urlsafe(24)
        self.codes[code] = AuthorizationCode(
            code=code,
            scopes=params.scopes or [],
            expires_at=time.time() + 300,
            client_id=client.client_id or "",
            code_challenge=params.code_challenge,
            redirect_uri=params.redirect_uri,
            redirect_uri_provided_explicitly=params.redirect_uri_provided_explicitly,
            resource=params.resource,
        )
        return construct_redirect_uri(str(params.redirect_uri), code=code, state=params.state)

    async def load_authorization_code(self, client: Any, authorization_code: str) -> AuthorizationCode | None:
        return self.codes.get(authorization_code)

    async def exchange_authorization_code(self, client: Any, authorization_code: AuthorizationCode) -> OAuthToken:
        self.codes.pop(authorization_code.code, None)
        return self._issue("authorization_code", client.client_id, authorization_code.scopes, refresh=True)

    async def load_refresh_token(self, client: Any, refresh_token: str) -> RefreshToken | None:
        token = self.refresh.get(refresh_token)
        return token if token is not None and token.client_id == client.client_id else None

    async def exchange_refresh_token(self, client: Any, refresh_token: RefreshToken, scopes: list[str]) -> OAuthToken:
        self.refresh.pop(refresh_token.token, None)
        return self._issue("refresh_token", client.client_id, scopes or refresh_token.scopes, refresh=True)

    async def load_access_token(self, token: str) -> AccessToken | None:
        access = self.access.get(token)
        if access is None or (access.expires_at is not None and access.expires_at < time.time()):
            return None
        return access

    async def revoke_token(self, token: Any) -> None:
        self.access.pop(token.token, None)
        self.refresh.pop(token.token, None)

    def _issue(self, grant: str, client_id: str, scopes: list[str], *, refresh: bool) -> OAuthToken:
        self.issued[grant] += 1
        access = "at-" + secrets.token_urlsafe(24)
        self.access[access] = AccessToken(
            token=access, client_id=client_id, scopes=scopes, expires_at=int(time.time()) + ACCESS_SECONDS
        )
        refresh_token = None
        if refresh:
            refresh_token = "rt-" + secrets.token_urlsafe(24)
            self.refresh[refresh_token] = RefreshToken(token=refresh_token, client_id=client_id, scopes=scopes)
        return OAuthToken(
            access_token=access,
            expires_in=ACCESS_SECONDS,
            scope=" ".join(scopes) or None,
            refresh_token=refresh_token,
        )


def build(port: int) -> tuple[MCPServer, AutoApproveProvider]:
    base = f"http://127.0.0.1:{port}"
    provider = AutoApproveProvider()
    server = MCPServer(
        "oauth-probe",
        version="1.0",
        auth_server_provider=provider,
        auth=AuthSettings(
            issuer_url=base,
            resource_server_url=f"{base}/mcp",
            validate_token_resource=False,
            required_scopes=["mcp"],
            client_registration_options=ClientRegistrationOptions(
                enabled=True, valid_scopes=["mcp", "extra"], default_scopes=["mcp"]
            ),
        ),
    )

    @server.tool(annotations=ToolAnnotations(read_only_hint=True))
    async def whoami() -> str:
        """Says the caller is authorized."""
        return "authorized"

    @server.custom_route("/test/expire", methods=["POST"])
    async def expire(request: Request) -> Response:
        for token in provider.access.values():
            token.expires_at = 0
        return JSONResponse({"expired": len(provider.access)})

    @server.custom_route("/test/stats", methods=["GET"])
    async def stats(request: Request) -> Response:
        return JSONResponse(dict(provider.issued))

    return server, provider


def main() -> None:
    port = int(sys.argv[1])
    server, _ = build(port)
    server.run("streamable-http", host="127.0.0.1", port=port)


if __name__ == "__main__":
    main()
