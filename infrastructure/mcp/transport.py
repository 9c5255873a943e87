"""Opening the SDK client of one MCP server over stdio or streamable HTTP.

The ``mcp`` SDK (and ``httpx2``) is imported here only when a server is actually started.
``open_client`` enters the transport and the client on the caller's exit stack. A stdio server's
incoming stream is watched (``watched``) so that a process that exits while no call runs is seen
at once; an HTTP server's error responses are kept by ``HttpErrors`` (the SDK turns them into a
generic JSON-RPC error), so failures can quote the status and the first lines of the body.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quorum.infrastructure.mcp.auth.store import McpTokenStore
from quorum.infrastructure.mcp.client_features import ClientFeatures
from quorum.infrastructure.mcp.server_tools import expand_variables
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.stderr_log import StderrLog

if TYPE_CHECKING:
    from mcp.client.session import MessageHandlerFnT

    from quorum.infrastructure.mcp.auth.oauth import LoginRequired

_BODY_LINES = 5
"""Lines of an HTTP error body quoted in an error message."""
_BODY_LINE_LIMIT = 300


def describe(error: BaseException) -> str:
    """A one-line description, unwrapping the exception groups anyio raises."""
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    text = str(error).strip()
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


class HttpErrors:
    """An HTTP server's last error response, and the connection generation that lost its session.

    Args:
        generation: The current connection generation (a new one per (re)connection).
    """

    def __init__(self, generation: Callable[[], int]) -> None:
        self._generation = generation
        self.last: str | None = None
        """``HTTP 500 Reason: first body lines`` of the last error response not yet quoted."""
        self.session_lost_in = -1
        """The generation in which the server said it no longer knows the session."""

    def take(self) -> str | None:
        """The last error response's text, forgotten once taken (each failure quotes its own)."""
        last, self.last = self.last, None
        return last

    async def on_response(self, response: Any) -> None:
        """Response hook (httpx): keep an error response's status and first body lines for messages.

        A 404, or a 400 whose body names the session, to a request that carried a session id
        means the server no longer knows the session (it restarted): the calls of this
        connection generation are then re-initialized rather than failed.
        """
        if response.status_code < 400:
            return
        body = ""
        with contextlib.suppress(Exception):
            await response.aread()
            body = response.text
        lines = [line.strip()[:_BODY_LINE_LIMIT] for line in body.splitlines() if line.strip()][:_BODY_LINES]
        reason = getattr(response, "reason_phrase", "") or ""
        text = f"HTTP {response.status_code}{' ' + reason if reason else ''}"
        if lines:
            text += ": " + "\n".join(lines)
        self.last = text
        had_session = "mcp-session-id" in response.request.headers
        if had_session and (response.status_code == 404 or (response.status_code == 400 and "session" in body.lower())):
            self.session_lost_in = self._generation()


@dataclass(frozen=True)
class ServerEndpoint:
    """What opening one server's client needs.

    Attributes:
        name: The server's name in ``[mcp.servers]``.
        settings: Its settings (``command`` for stdio, else ``url``).
        env: Variables ``${NAME}`` in ``env``/``headers`` expand from.
        workspace: The directory ``cwd`` is relative to.
        features: Roots, sampling, elicitation, logging and progress offered to the server.
        stderr: Where a stdio server's stderr goes.
        token_store: OAuth tokens of HTTP servers (None: no OAuth).
    """

    name: str
    settings: McpServerSettings
    env: Mapping[str, str]
    workspace: Path
    features: ClientFeatures
    stderr: StderrLog
    token_store: McpTokenStore | None

    @property
    def where(self) -> str:
        return f"mcp.servers.{self.name}"


async def open_client(
    stack: contextlib.AsyncExitStack,
    endpoint: ServerEndpoint,
    *,
    ended: asyncio.Event,
    http_errors: HttpErrors,
    on_message: MessageHandlerFnT,
    on_login_required: Callable[[LoginRequired], None],
) -> Any:
    """The initialized SDK client of ``endpoint``, entered on ``stack`` (left when it closes).

    Args:
        stack: Where the transport and the client are entered.
        endpoint: The server to open.
        ended: Set when a stdio server's incoming stream ends (its process exited).
        http_errors: Told of an HTTP server's error responses.
        on_message: Called with each notification the server sends.
        on_login_required: Called when the OAuth provider says a request needs a (new) login.

    Raises:
        LoginRequired: The server needs a login (the message names the command to run).
        Exception: Whatever the SDK raised while connecting.
    """
    from mcp import Client, StdioServerParameters
    from mcp.types import Implementation

    settings = endpoint.settings
    if settings.command is not None:
        from mcp.client.stdio import stdio_client

        env = expand_variables(settings.env, endpoint.env, where=f"{endpoint.where}.env")
        # No cwd: the workspace, not this process's directory (under ``quorum acp`` the editor's
        # project is the session's cwd, while the agent runs wherever the editor started it).
        cwd = str((endpoint.workspace / (settings.cwd or ".")).resolve())
        params = StdioServerParameters(command=settings.command, args=list(settings.args), env=env or None, cwd=cwd)
        transport = watched(stdio_client(params, errlog=endpoint.stderr.file()), ended)
    else:
        import httpx2
        from mcp.client.streamable_http import streamable_http_client

        from quorum.infrastructure.mcp.auth.oauth import connection_auth

        headers = expand_variables(settings.headers, endpoint.env, where=f"{endpoint.where}.headers")
        auth = connection_auth(
            endpoint.name,
            str(settings.url),
            settings.auth,
            headers,
            endpoint.token_store,
            endpoint.env,
            on_login_required=on_login_required,
        )
        http = await stack.enter_async_context(
            httpx2.AsyncClient(
                headers=headers,
                auth=auth,
                timeout=httpx2.Timeout(30.0, read=300.0),
                event_hooks={"response": [http_errors.on_response]},
            )
        )
        transport = streamable_http_client(str(settings.url), http_client=http)
    client = Client(
        transport,
        message_handler=on_message,
        client_info=Implementation(name="quorum", version="0.1.0"),
        **endpoint.features.client_options(),
    )
    try:
        await stack.enter_async_context(client)
    except Exception as error:  # a server that needs a login says so, with the command to run
        from quorum.infrastructure.mcp.auth.oauth import find_login_required

        login = find_login_required(error)
        if login is not None:
            raise login from None
        raise
    await endpoint.features.connected(client)
    return client


@contextlib.asynccontextmanager
async def watched(transport: Any, ended: asyncio.Event) -> AsyncIterator[tuple[Any, Any]]:
    """``transport`` with its incoming stream watched: ``ended`` is set when that stream ends."""
    async with transport as (read_stream, write_stream):
        yield _WatchedReadStream(read_stream, ended), write_stream


class _WatchedReadStream:
    """A transport's read stream that sets ``ended`` at its end (EOF: a stdio server's process exited).

    The SDK reads it continuously, so the end is seen when it happens, also while no call runs.
    """

    def __init__(self, stream: Any, ended: asyncio.Event) -> None:
        self._stream = stream
        self._ended = ended

    async def receive(self) -> Any:
        import anyio

        try:
            return await self._stream.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
            self._ended.set()
            raise

    def __aiter__(self) -> _WatchedReadStream:
        return self

    async def __anext__(self) -> Any:
        import anyio

        try:
            return await self.receive()
        except anyio.EndOfStream:
            raise StopAsyncIteration from None

    async def aclose(self) -> None:
        await self._stream.aclose()

    async def __aenter__(self) -> _WatchedReadStream:
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)  # e.g. ``last_context`` of the SDK's context-aware streams
