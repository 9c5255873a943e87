"""``[mcp.servers.NAME.auth]``: how Quorum authorizes itself to a streamable-HTTP MCP server."""

from __future__ import annotations

from typing import Literal

from pydantic import Field, model_validator

from quorum.infrastructure.config.sections import Section


class McpAuthSettings(Section):
    """OAuth 2.1 for one HTTP server (the MCP authorization spec). Every key is optional.

    With no table at all, a server answering 401 gets the default: discovery, dynamic client
    registration and the authorization-code flow on ``quorum mcp login NAME``.

    Attributes:
        grant: ``authorization_code`` (a person logs in once with ``quorum mcp login``; runs refresh
            the token) or ``client_credentials`` (machine use: ``client_id`` + ``client_secret``,
            a token is fetched whenever needed, no login).
        client_id, client_secret: a pre-registered client (skips dynamic registration). ``${VAR}``
            is replaced from the environment; put the secret there, not in the file.
        scopes: scopes to request (default: what the server's 401 or metadata asks for).
        issuer: the authorization server the client credentials belong to; with it, a
            ``client_credentials`` secret is only ever sent to that server's token endpoint.
        redirect_port: loopback port for the login redirect (``http://127.0.0.1:PORT/callback``);
            0 picks a free one. Set it when a pre-registered client allows one fixed redirect URI.
        client_metadata_url: an HTTPS URL-based client id (client ID metadata document), used
            instead of registration when the authorization server supports it.
        token_endpoint_auth_method: how a ``client_secret`` is sent: ``client_secret_basic`` or
            ``client_secret_post``.
        enabled: false: never authorize (a 401 is then reported as is).
    """

    grant: Literal["authorization_code", "client_credentials"] = "authorization_code"
    client_id: str | None = None
    client_secret: str | None = None
    scopes: list[str] = Field(default_factory=list)
    issuer: str | None = None
    redirect_port: int = Field(0, ge=0, le=65535)
    client_metadata_url: str | None = None
    token_endpoint_auth_method: Literal["client_secret_basic", "client_secret_post"] = "client_secret_basic"
    enabled: bool = True

    @model_validator(mode="after")
    def _credentials_for_machines(self) -> McpAuthSettings:
        if self.grant == "client_credentials" and not (self.client_id and self.client_secret):
            raise ValueError("grant = 'client_credentials' needs 'client_id' and 'client_secret'")
        return self
