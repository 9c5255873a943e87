"""OAuth for streamable-HTTP MCP servers, on the ``mcp`` SDK's ``OAuthClientProvider`` (an httpx Auth).

The SDK does the protocol (protected-resource and authorization-server metadata discovery, dynamic
registration or a client ID metadata document, PKCE, token exchange, refresh, scope step-up); this
module chooses the provider from ``[mcp.servers.NAME.auth]`` and supplies what the SDK leaves to
the application:

- ``build_auth`` for runs: stored tokens are sent and refreshed; when the server still answers
  401 (no tokens, refresh refused) the request fails with ``LoginRequired`` (naming
  ``quorum mcp login NAME``) before anything is registered or a browser opened. With
  ``grant = "client_credentials"`` a token is fetched whenever needed, no login.
- ``login`` for ``quorum mcp login``: the full flow with a loopback redirect listener and the
  authorization URL opened in the browser (or printed).

Tokens live in ``McpTokenStore``; the SDK module is imported when a provider is built.
"""

from __future__ import annotations

import dataclasses
import functools
import logging
import warnings
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from typing import TYPE_CHECKING, Any

from quorum.domain.errors import ConfigurationError, ToolSourceError
from quorum.infrastructure.mcp.auth.loopback import LoopbackRedirect
from quorum.infrastructure.mcp.auth.settings import McpAuthSettings
from quorum.infrastructure.mcp.auth.store import McpTokenStore, ServerTokenStorage
from quorum.infrastructure.mcp.server_tools import expand_variables

if TYPE_CHECKING:
    import httpx2

LOGIN_TIMEOUT = 300.0
"""Seconds ``quorum mcp login`` waits for the browser to come back."""


def login_hint(server: str) -> str:
    """The command that logs in to ``server``."""
    return f"quorum mcp login {server}"


class LoginRequired(ToolSourceError):
    """The server wants authorization and no usable token is stored (a run cannot open a browser).

    ``scope`` is set for a step-up (HTTP 403 ``insufficient_scope``): the scope the next login asks for.
    """

    def __init__(self, server: str, scope: str | None = None) -> None:
        # Worded to follow "MCP server 'NAME' ", as the connection reports it.
        if scope is None:
            what = "needs authorization (HTTP 401)"
        else:
            what = f"needs authorization for more scope (HTTP 403 insufficient_scope, scope {scope!r})"
        super().__init__(f"{what}: run `{login_hint(server)}`", source=f"mcp.servers.{server}")
        self.server = server
        self.scope = scope


def uses_oauth(auth: McpAuthSettings, headers: Mapping[str, str]) -> bool:
    """Whether a server gets the OAuth provider: not when disabled or a hand-set Authorization header rules."""
    return auth.enabled and not any(key.lower() == "authorization" for key in headers)


def connection_auth(
    server: str,
    url: str,
    auth: McpAuthSettings,
    headers: Mapping[str, str],
    store: McpTokenStore | None,
    env: Mapping[str, str],
    *,
    on_login_required: Callable[[LoginRequired], None] | None = None,
) -> httpx2.Auth | None:
    """The Auth a run's connection to an HTTP server uses, or None (no store, disabled, own header).

    ``on_login_required`` is told when a request fails for want of a login: the SDK's transport
    reports the failure as a closed connection, so the connection learns the reason this way.
    """
    if store is None or not uses_oauth(auth, headers):
        return None
    return build_auth(server, url, auth, store, env, on_login_required=on_login_required)


def build_auth(
    server: str,
    url: str,
    auth: McpAuthSettings,
    store: McpTokenStore,
    env: Mapping[str, str],
    *,
    interaction: Interaction | None = None,
    on_login_required: Callable[[LoginRequired], None] | None = None,
) -> httpx2.Auth:
    """The httpx Auth for ``server`` at ``url``.

    Args:
        server: the ``[mcp.servers.NAME]`` name.
        url: its ``url``.
        auth: its ``auth`` table.
        store: where tokens and registrations are kept.
        env: for ``${VAR}`` in ``client_id`` / ``client_secret``.
        interaction: given by ``login``: how to reach the person. Without it (runs), an
            authorization-code server that needs a new login fails with ``LoginRequired``.
        on_login_required: called with that ``LoginRequired`` before it is raised.

    Raises:
        ConfigurationError: a ``${VAR}`` is unset, or the settings cannot make a client.
    """
    _quiet_sdk_logs()
    from mcp.client.auth.extensions.client_credentials import ClientCredentialsOAuthProvider
    from mcp.shared.auth import OAuthClientMetadata

    where = f"mcp.servers.{server}.auth"
    values = {"client_id": auth.client_id or "", "client_secret": auth.client_secret or ""}
    credentials = expand_variables({k: v for k, v in values.items() if v}, env, where=where)
    client_id, client_secret = credentials.get("client_id"), credentials.get("client_secret")
    storage = store.storage(server, url)
    scope = " ".join(auth.scopes) or None

    if auth.grant == "client_credentials":
        assert client_id and client_secret  # the settings validator requires both

        class _Machine(_KnownExpiry, ClientCredentialsOAuthProvider):
            pass

        with warnings.catch_warnings():
            # Without `issuer` the SDK warns that the server picks where the secret goes; the
            # README says so and recommends `issuer`, so the warning is not repeated on every run.
            warnings.simplefilter("ignore")
            return _Machine(
                server_url=url,
                storage=storage,
                client_id=client_id,
                client_secret=client_secret,
                token_endpoint_auth_method=auth.token_endpoint_auth_method,
                scope=scope,
                issuer=auth.issuer,
            )

    redirect_uri = (
        interaction.redirect.redirect_uri if interaction else f"http://127.0.0.1:{auth.redirect_port}/callback"
    )
    metadata = OAuthClientMetadata(
        client_name="Quorum",
        redirect_uris=[redirect_uri],  # type: ignore[list-item]  # pydantic parses the str
        grant_types=["authorization_code", "refresh_token"],
        response_types=["code"],
        token_endpoint_auth_method=(auth.token_endpoint_auth_method if client_secret else "none"),
        scope=scope,
    )
    if client_id:
        _preregister(storage, client_id, client_secret, redirect_uri, metadata.token_endpoint_auth_method)
    interactive, run_only = _provider_classes()
    provider_class = interactive if interaction is not None else run_only
    try:
        provider = provider_class(
            server_url=url,
            client_metadata=metadata,
            storage=storage,
            redirect_handler=interaction.open_url if interaction else None,
            callback_handler=interaction.callback if interaction else None,
            client_metadata_url=auth.client_metadata_url,
        )
    except ValueError as error:
        raise ConfigurationError(f"{where}: {error}") from None
    provider.server_name = server
    provider.on_login_required = on_login_required
    return provider


class Interaction:
    """How ``login`` reaches the person: the loopback listener and a way to show the URL.

    Args:
        redirect: the entered loopback listener.
        show_url: called with the authorization URL (opens the browser and/or prints it).
        timeout: seconds to wait for the browser to come back.
    """

    def __init__(
        self,
        redirect: LoopbackRedirect,
        show_url: Callable[[str], Awaitable[None]],
        timeout: float = LOGIN_TIMEOUT,
    ) -> None:
        self.redirect = redirect
        self.show_url = show_url
        self.timeout = timeout

    async def open_url(self, url: str) -> None:
        await self.show_url(url)

    async def callback(self) -> Any:
        import asyncio

        from mcp.client.auth import AuthorizationCodeResult, OAuthFlowError

        try:
            params = await asyncio.wait_for(self.redirect.wait(), self.timeout)
        except TimeoutError:
            raise OAuthFlowError(f"no answer from the browser within {self.timeout:g} s") from None
        if "error" in params:
            detail = params.get("error_description") or params["error"]
            raise OAuthFlowError(f"the authorization server refused: {detail}")
        return AuthorizationCodeResult(code=params.get("code", ""), state=params.get("state"), iss=params.get("iss"))


async def login(
    server: str,
    url: str,
    auth: McpAuthSettings,
    store: McpTokenStore,
    env: Mapping[str, str],
    show_url: Callable[[str], Awaitable[None]],
    *,
    timeout: float = LOGIN_TIMEOUT,
) -> int:
    """Log in to ``server`` afresh (old tokens dropped first) and return its number of tools.

    Connects with the full flow (discovery, registration, browser, token exchange) and lists
    the tools to prove the token works. Raises ``ToolSourceError`` with the reason on failure.
    """
    import httpx2
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client
    from mcp.types import Implementation

    storage = store.storage(server, url)
    storage.clear_tokens()
    redirect = await _listen(storage, auth.redirect_port)
    try:
        provider = build_auth(server, url, auth, store, env, interaction=Interaction(redirect, show_url, timeout))
        async with (
            httpx2.AsyncClient(auth=provider, timeout=httpx2.Timeout(30.0, read=300.0)) as http,
            Client(
                streamable_http_client(url, http_client=http),
                client_info=Implementation(name="quorum", version="0.1.0"),
            ) as client,
        ):
            tools = await client.list_tools()
    except ConfigurationError:
        raise
    except Exception as error:
        raise ToolSourceError(
            f"login to MCP server {server!r} failed: {describe(error)}", source=f"mcp.servers.{server}"
        ) from None
    finally:
        await redirect.__aexit__(None, None, None)
    return len(tools.tools)


def describe(error: BaseException) -> str:
    """The innermost meaningful message of ``error`` (unwrapping anyio's exception groups)."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip()
    return text or type(error).__name__


def find_login_required(error: BaseException) -> LoginRequired | None:
    """The ``LoginRequired`` inside ``error`` (groups, causes), if any."""
    seen: set[int] = set()
    stack = [error]
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        if isinstance(current, LoginRequired):
            return current
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        stack.extend(e for e in (current.__cause__, current.__context__) if e is not None)
    return None


def browser_allowed(env: Mapping[str, str], *, is_terminal: bool) -> bool:
    """Open a browser only for a person at a terminal, and not when ``QUORUM_NO_BROWSER`` is set."""
    return is_terminal and not env.get("QUORUM_NO_BROWSER")


# -- internals -----------------------------------------------------------------------------


def _quiet_sdk_logs() -> None:
    # The SDK logs its flow failures with tracebacks; Quorum reports them itself, in one line.
    logger = logging.getLogger("mcp.client.auth")
    if not any(isinstance(h, logging.NullHandler) for h in logger.handlers):
        logger.addHandler(logging.NullHandler())
        logger.propagate = False


def _registered_port(storage: ServerTokenStorage) -> int:
    """The loopback port of a dynamic registration stored earlier (reused so it stays valid)."""
    from urllib.parse import urlsplit

    info = storage.record().client_info or {}
    uris = info.get("redirect_uris") or []
    if not uris:
        return 0
    parts = urlsplit(str(uris[0]))
    return parts.port or 0 if parts.hostname == "127.0.0.1" else 0


async def _listen(storage: ServerTokenStorage, fixed_port: int) -> LoopbackRedirect:
    """The entered loopback listener for the login redirect.

    On ``fixed_port``, else the port of a stored dynamic registration (so it stays valid), else a
    free one (a registration for a taken port is dropped: the SDK registers anew).
    """
    port = fixed_port or _registered_port(storage)
    redirect = LoopbackRedirect(port)
    try:
        return await redirect.__aenter__()
    except OSError as error:
        if fixed_port or not port:
            raise ToolSourceError(
                f"cannot listen on 127.0.0.1:{port} for the login redirect: {error.strerror}",
                source=f"mcp.servers.{storage.server}.auth.redirect_port",
            ) from None
    stale = dataclasses.replace(storage.record(), tokens=None, expires_at=None, client_info=None)
    storage.store.save(storage.server, stale)
    return await LoopbackRedirect(0).__aenter__()


def _preregister(
    storage: ServerTokenStorage, client_id: str, client_secret: str | None, redirect_uri: str, method: str | None
) -> None:
    """Put the configured client in the store, so the SDK skips dynamic registration."""
    record = storage.record()
    info = {
        "client_id": client_id,
        "redirect_uris": [redirect_uri],
        "token_endpoint_auth_method": method or "none",
        "grant_types": ["authorization_code", "refresh_token"],
        "response_types": ["code"],
    }
    if client_secret:
        info["client_secret"] = client_secret
    if record.client_info != info:
        storage.store.save(storage.server, dataclasses.replace(record, client_info=info))


class _KnownExpiry:
    """Mixin: the stored expiry time is restored with the tokens (the SDK forgets it across processes).

    Without it a token stored by an earlier process counts as valid until the server says 401,
    and the SDK then starts a new login instead of refreshing.
    """

    context: Any
    server_name: str = ""
    on_login_required: Callable[[LoginRequired], None] | None = None

    async def _initialize(self) -> None:
        await super()._initialize()  # type: ignore[misc]
        storage = self.context.storage
        if isinstance(storage, ServerTokenStorage) and self.context.current_tokens is not None:
            self.context.token_expiry_time = storage.expires_at()


@functools.cache
def _provider_classes() -> tuple[type[Any], type[Any]]:
    """The two authorization-code providers (made on first use: they subclass the SDK's)."""
    from mcp.client.auth import OAuthClientProvider

    class Interactive(_KnownExpiry, OAuthClientProvider):
        """The full flow, for ``quorum mcp login``; asks for the scope a run was refused for, too."""

        async def _perform_authorization(self) -> Any:
            from mcp.client.auth.utils import union_scopes

            storage = self.context.storage
            if isinstance(storage, ServerTokenStorage) and (wanted := storage.record().scope):
                metadata = self.context.client_metadata
                metadata.scope = union_scopes(metadata.scope, wanted)
            return await super()._perform_authorization()

    class RunOnly(_KnownExpiry, OAuthClientProvider):
        """Stored tokens and refresh only: a 401 that would need a person raises ``LoginRequired``."""

        async def _auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
            flow = super()._auth_flow(request)
            try:
                outgoing = await flow.__anext__()
                while True:
                    response = yield outgoing
                    if outgoing is request and _needs_person(response):
                        needed = LoginRequired(self.server_name, self._step_up_scope(response))
                        self._initialized = False  # reload the tokens a new login stores
                        if self.on_login_required is not None:
                            self.on_login_required(needed)
                        raise needed
                    outgoing = await flow.asend(response)
            except StopAsyncIteration:
                return
            finally:
                await flow.aclose()

        def _step_up_scope(self, response: httpx2.Response) -> str | None:
            """For a 403 step-up: the scope to log in with (held and challenged), remembered for login."""
            if response.status_code != 403:
                return None
            from mcp.client.auth.utils import extract_scope_from_www_auth, union_scopes

            tokens = self.context.current_tokens
            held = union_scopes(self.context.client_metadata.scope, tokens.scope if tokens else None)
            scope = union_scopes(held, extract_scope_from_www_auth(response)) or ""
            storage = self.context.storage
            if scope and isinstance(storage, ServerTokenStorage):
                storage.want_scope(scope)
            return scope or None

    return Interactive, RunOnly


def _needs_person(response: httpx2.Response) -> bool:
    if response.status_code == 401:
        return True
    return response.status_code == 403 and 'error="insufficient_scope"' in response.headers.get("www-authenticate", "")
