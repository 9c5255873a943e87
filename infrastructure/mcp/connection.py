"""``McpServerConnection``: one MCP server, started, watched, restarted once and stopped.

The SDK's client (opened by ``transport.open_client``) is an anyio context manager that must be
entered and left by one task, so each connection has an owner task that holds it open until
``aclose``; calls from any task share the one session (the SDK multiplexes concurrent requests).
The server's tool list lives in ``tool_list.ServerToolList``.

Every start, failed start and restart is reported to ``on_event`` as an ``McpServerEvent``.
Failures quote what the server said: the last lines of a stdio server's stderr, or an HTTP
server's status and the first lines of its error body (``transport.HttpErrors``).
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from quorum.application.run_context import report_progress
from quorum.domain.errors import ToolSourceError
from quorum.domain.events import McpServerEvent
from quorum.domain.tools import ToolResult
from quorum.infrastructure.mcp import tasks
from quorum.infrastructure.mcp.auth.store import McpTokenStore
from quorum.infrastructure.mcp.cache import ToolListCache
from quorum.infrastructure.mcp.client_features import ClientFeatures
from quorum.infrastructure.mcp.results import outcome_from_result
from quorum.infrastructure.mcp.server_tools import ServerTool
from quorum.infrastructure.mcp.settings import McpServerSettings
from quorum.infrastructure.mcp.stderr_log import StderrLog
from quorum.infrastructure.mcp.tool_list import ServerToolList
from quorum.infrastructure.mcp.transport import HttpErrors, ServerEndpoint, describe, open_client
from quorum.infrastructure.telemetry.hooks import mcp_request

if TYPE_CHECKING:
    from quorum.infrastructure.mcp.auth.oauth import LoginRequired

ServerState = Literal["idle", "starting", "running", "failed", "dead", "closed"]
_CLOSE_GRACE = 10.0
_CONNECTION_CLOSED = -32000


class McpServerConnection:
    """One configured MCP server.

    ``state`` is ``idle`` (not started; lazy servers wait here), ``starting``, ``running``,
    ``failed`` (could not start; ``error`` says why, with the stderr tail or the HTTP status and
    body), ``dead`` (was running and went away), or ``closed``.

    Recovery: a dead server is restarted once. One whose connection ended while idle (a stdio
    server's process exited) is found dead *before* the next call is sent, so no call is lost to
    it. An HTTP server that no longer knows the session (404, or 400 naming the session) is
    re-initialized once and the call sent again only when the tool is read-only; a call that may
    have effects gets an error result instead (the model may call again).
    """

    def __init__(
        self,
        name: str,
        settings: McpServerSettings,
        *,
        env: Mapping[str, str],
        workspace: Path,
        cache: ToolListCache | None = None,
        features: ClientFeatures | None = None,
        on_event: Callable[[McpServerEvent], None] | None = None,
        token_store: McpTokenStore | None = None,
    ) -> None:
        self.name = name
        self.settings = settings
        self.features = features or ClientFeatures(name, settings, workspace=workspace)
        """Roots, sampling, elicitation, logging and progress offered to the server."""
        self.state: ServerState = "idle"
        self.error: str | None = None
        self.start_seconds: float | None = None
        self.restarts = 0
        self.instructions: str | None = None
        """What the server said about using it (``initialize``'s ``instructions``), once started."""
        self.on_event = on_event
        """Told when the server started, failed to start or was restarted."""
        self.admit: Callable[[str], str | None] | None = None
        """Checks a tool (original name) against the live list just before a call is sent: a
        refusal message, or None to send it (the tool source's pins; None: no check)."""
        self.transport_ended = asyncio.Event()
        """Set when the current connection's incoming stream ended (a stdio server's process exited)."""
        self._generation = 0
        self._http = HttpErrors(lambda: self._generation)
        self._needs_login: LoginRequired | None = None
        self._tools = ServerToolList(name, settings, cache)
        self._stderr = StderrLog(name)
        self._endpoint = ServerEndpoint(name, settings, env, workspace, self.features, self._stderr, token_store)
        self._client: Any = None
        self._owner: asyncio.Task[None] | None = None
        self._stop: asyncio.Event | None = None
        self._ready: asyncio.Future[Any] | None = None
        self._listener: asyncio.Task[None] | None = None
        self._lock = asyncio.Lock()

    @property
    def where(self) -> str:
        return f"mcp.servers.{self.name}"

    @property
    def tools(self) -> list[ServerTool] | None:
        """The last tool list read from the server, or None before the first."""
        return self._tools.tools

    @property
    def tools_changed(self) -> asyncio.Event:
        """Set whenever the server announces tools/list_changed (tests and UIs may wait on it)."""
        return self._tools.changed

    @property
    def tools_stale(self) -> bool:
        """The running server announced a tool-list change not yet listed again."""
        return self._tools.stale and self.state == "running"

    def cached_tools(self) -> list[ServerTool] | None:
        """The tool list from the cache file, when there is one for these settings."""
        return self._tools.cached()

    def cached_instructions(self) -> str | None:
        """The ``instructions`` stored with the cached tool list (a lazy server not started yet)."""
        return self._tools.cached_instructions()

    async def start(self) -> None:
        """Start the server (no-op when running) and list its tools, within ``timeout_seconds``.

        Raises:
            ToolSourceError: it failed or missed the deadline; ``error`` keeps the message.
        """
        async with self._lock:
            if self.state == "running":
                return
            await self._start_locked()

    async def tool_list(self) -> list[ServerTool]:
        """The live tool list, refreshed if the server announced a change since the last one."""
        if self._tools.stale and self.state == "running":
            try:
                await asyncio.wait_for(self._refresh_tools(), self.settings.timeout_seconds)
            except Exception as error:
                self._tools.stale = False  # keep the last list; the next change announcement retries
                self.error = f"refreshing the tool list failed: {describe(error)}"
        return list(self._tools.tools or [])

    async def call(self, tool: str, arguments: dict[str, Any], *, read_only: bool = False) -> ToolResult:
        """Call ``tool`` (its original name); every failure becomes an error result, never raised.

        ``read_only``: the tool is marked read-only, so it may be sent again after the HTTP
        session was lost and re-initialized.
        """
        async with self._lock:
            if self.state == "running" and self.transport_ended.is_set():
                self._mark_dead("it exited while idle")
            if self.state == "dead" and self.restarts < 1:
                self.restarts += 1
                with contextlib.suppress(ToolSourceError):
                    await self._start_locked(restart=True)
            elif self.state == "idle":
                report_progress(f"starting MCP server {self.name}")
                with contextlib.suppress(ToolSourceError):
                    await self._start_locked()
            client = self._client if self.state == "running" else None
            generation = self._generation
        if client is None:
            return ToolResult(output=self._unavailable_message(), is_error=True)
        refused = await self._refused(tool)
        if refused is not None:
            return ToolResult(output=refused, is_error=True)
        try:
            with mcp_request("tools/call", tool, server=self.name, transport=self._transport) as meta:
                progress = self.features.progress_callback()
                result = await tasks.call_tool(client, tool, self._spec(tool), arguments, progress, meta=meta)
        except Exception as error:
            needed, self._needs_login = self._needs_login, None
            if needed is not None:  # the transport closed because the request needs a new login
                self._mark_dead(f"MCP server {self.name!r} {needed}")
                return ToolResult(output=f"MCP server {self.name!r} {needed}", is_error=True)
            if self._http.session_lost_in == generation:
                return await self._after_lost_session(tool, arguments, generation, read_only=read_only)
            if self._connection_lost(error):
                self._mark_dead(f"the connection was lost during {tool!r}: {describe(error)}")
                return ToolResult(
                    output=f"MCP server {self.name!r} died during the call to {tool!r}"
                    f"{self._stderr.suffix()}. It will be restarted once on the next call.",
                    is_error=True,
                )
            return ToolResult(
                output=f"MCP server {self.name!r} failed the call to {tool!r}: {self._explain(error)}",
                is_error=True,
            )
        self._stderr.mark()
        return outcome_from_result(result, server=self.name)

    async def _after_lost_session(
        self, tool: str, arguments: dict[str, Any], generation: int, *, read_only: bool
    ) -> ToolResult:
        """The HTTP server no longer knew the session: re-initialize once, resend only read-only calls."""
        lost = self._http.last or "the server no longer knows the session"
        async with self._lock:
            if self._generation == generation:  # not yet re-initialized by a concurrent call
                with contextlib.suppress(ToolSourceError):
                    await self._start_locked(restart=True, why=f"the session was lost ({lost})")
            client = self._client if self.state == "running" else None
        if client is None:
            return ToolResult(output=self._unavailable_message(), is_error=True)
        refused = await self._refused(tool)
        if refused is not None:
            return ToolResult(output=refused, is_error=True)
        if not read_only:
            return ToolResult(
                output=f"MCP server {self.name!r} no longer knew this session ({lost}), so {tool!r} was not run. "
                "The session was re-initialized; the call was not sent again automatically because the tool "
                "is not read-only. Call it again if it is still needed.",
                is_error=True,
            )
        try:
            with mcp_request("tools/call", tool, server=self.name, transport=self._transport) as meta:
                progress = self.features.progress_callback()
                result = await tasks.call_tool(client, tool, self._spec(tool), arguments, progress, meta=meta)
        except Exception as error:
            return ToolResult(
                output=f"MCP server {self.name!r} failed the call to {tool!r} after re-initializing its "
                f"session: {self._explain(error)}",
                is_error=True,
            )
        self._stderr.mark()
        return outcome_from_result(result, server=self.name)

    @property
    def _transport(self) -> str:
        return "stdio" if self.settings.url is None else "http"

    @property
    def offers_resources(self) -> bool:
        """The running server declared the ``resources`` capability."""
        client = self._client if self.state == "running" else None
        return client is not None and getattr(client.server_capabilities, "resources", None) is not None

    async def list_resources(self, limit: int) -> list[Any]:
        """Up to ``limit`` resources of the running server (``resources/list``, paged); SDK errors propagate."""
        client = self._client if self.state == "running" else None
        resources: list[Any] = []
        cursor: str | None = None
        while client is not None and len(resources) < limit:
            with mcp_request("resources/list", None, server=self.name, transport=self._transport) as meta:
                page = await client.list_resources(cursor=cursor, meta=meta)
            resources.extend(page.resources)
            cursor = page.next_cursor
            if cursor is None:
                break
        return resources[:limit]

    async def read_resource(self, uri: str) -> Any:
        """``resources/read`` of ``uri`` on the running server: the result's ``contents``.

        Raises:
            ToolSourceError: the server is not running. SDK errors propagate.
        """
        client = self._client if self.state == "running" else None
        if client is None:
            raise ToolSourceError(self._unavailable_message(), source=self.where)
        # No target in the span's name: a resource's URI may say what the user works on (content).
        with mcp_request("resources/read", None, server=self.name, transport=self._transport) as meta:
            return (await client.read_resource(uri, cache_mode="refresh", meta=meta)).contents

    async def aclose(self) -> None:
        """Stop the server and release its log file. Idempotent."""
        async with self._lock:
            await self._stop_owner()
            self.state = "closed"
            self._stderr.close()

    # -- internals -------------------------------------------------------------------------

    def _spec(self, tool: str) -> ServerTool | None:
        """``tool`` as the server last described it (whether it runs as a task), or None."""
        return next((t for t in self._tools.tools or [] if t.name == tool), None)

    async def _refused(self, tool: str) -> str | None:
        """``admit``'s refusal of ``tool`` against the live list (listed again if it changed), or None.

        Checked at the last moment, so a list that changed when a lazy server started, a server
        restarted or announced a change is never called on the strength of an older list.
        """
        if self.admit is None:
            return None
        await self.tool_list()
        return self.admit(tool)

    def _unavailable_message(self) -> str:
        if self.state == "dead":
            return f"MCP server {self.name!r} died and was already restarted once: {self.error}"
        if self.state == "closed":
            return f"MCP server {self.name!r} is closed"
        return f"MCP server {self.name!r} is unavailable: {self.error}"

    async def _start_locked(self, *, restart: bool = False, why: str | None = None) -> None:
        """Start (or restart) under the lock; reports the outcome to ``on_event``.

        ``why``: the reason for a restart, kept in the ``restarted`` event's ``error``.
        """
        why = why or (self.error if restart else None)
        started = time.monotonic()
        try:
            await self._connect_locked(started)
        except ToolSourceError:
            self._report("failed", self.error, started)
            raise
        self._report("restarted" if restart else "started", why, started)

    def _report(self, state: Literal["started", "failed", "restarted"], error: str | None, since: float) -> None:
        if self.on_event is not None:
            duration_ms = round((time.monotonic() - since) * 1000, 1)
            self.on_event(McpServerEvent(name=self.name, state=state, error=error, duration_ms=duration_ms))

    async def _connect_locked(self, started: float) -> None:
        await self._stop_owner()
        self.state = "starting"
        self.error = None
        self._http.last = None
        self._generation += 1
        self.transport_ended = asyncio.Event()
        self._stderr.mark()
        loop = asyncio.get_running_loop()
        ready: asyncio.Future[Any] = loop.create_future()
        self._ready = ready
        self._stop = asyncio.Event()
        try:
            self._owner = asyncio.create_task(self._own(ready, self._stop), name=f"mcp-server-{self.name}")
            async with asyncio.timeout(self.settings.timeout_seconds):
                self._client = await asyncio.shield(ready)
                await self._refresh_tools()
        except TimeoutError:
            await self._stop_owner()
            self._fail(f"did not start within {self.settings.timeout_seconds:g} s")
        except ToolSourceError as error:
            await self._stop_owner()
            self._fail(str(error))
        except Exception as error:
            await self._stop_owner()
            if getattr(error, "code", None) == _CONNECTION_CLOSED:
                self._fail(
                    f"failed to start: it exited or closed the connection during the handshake ({describe(error)})"
                )
            self._fail(f"failed to start: {self._explain(error)}")
        if getattr(self._client, "protocol_version", None) == "2026-07-28":
            listening = asyncio.Event()
            listen = self._tools.listen(self._client, listening)
            self._listener = asyncio.create_task(listen, name=f"mcp-listen-{self.name}")
            # Wait for the subscription to be acknowledged, so no change announced after start is lost.
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(listening.wait(), self.settings.timeout_seconds)
        self.instructions = getattr(self._client, "instructions", None) or None
        self._tools.store(self.instructions)
        self.state = "running"
        self.start_seconds = time.monotonic() - started
        self._stderr.mark()

    def _fail(self, message: str) -> None:
        self.state = "failed"
        self.error = message + self._stderr.suffix()
        raise ToolSourceError(f"MCP server {self.name!r} {self.error}", source=self.where)

    def _explain(self, error: BaseException) -> str:
        """``describe(error)``, with the HTTP status and body of the last error response when there was one."""
        described = describe(error)
        http = self._http.take()
        return f"{described} ({http})" if http else described

    async def _own(self, ready: asyncio.Future[Any], stop: asyncio.Event) -> None:
        """Hold the client open until ``stop``; report how it ended."""
        try:
            async with contextlib.AsyncExitStack() as stack:
                client = await self._open_client(stack)
                ready.set_result(client)
                await stop.wait()
        except BaseException as error:
            if not ready.done():
                if isinstance(error, Exception):
                    ready.set_exception(error)
                else:
                    ready.cancel()
            elif not stop.is_set() and self._owner is asyncio.current_task():
                self._mark_dead(f"the connection ended: {describe(error)}")
            if not isinstance(error, Exception):
                raise

    async def _open_client(self, stack: contextlib.AsyncExitStack) -> Any:
        return await open_client(
            stack,
            self._endpoint,
            ended=self.transport_ended,
            http_errors=self._http,
            on_message=self._tools.on_message,
            on_login_required=self._login_required,
        )

    async def _refresh_tools(self) -> None:
        # At start the list is stored later, with the server's instructions.
        with mcp_request("tools/list", None, server=self.name, transport=self._transport) as meta:
            await self._tools.refresh(
                self._client, instructions=self.instructions, store=self.state == "running", meta=meta
            )

    def _login_required(self, error: LoginRequired) -> None:
        """The OAuth provider says a request needs a (new) login; the failing call reports it."""
        self._needs_login = error

    def _connection_lost(self, error: Exception) -> bool:
        if getattr(error, "code", None) == _CONNECTION_CLOSED:
            return True
        if self._owner is None or self._owner.done():
            return True
        names = {cls.__name__ for cls in type(error).__mro__}
        return bool(names & {"ClosedResourceError", "BrokenResourceError", "EndOfStream", "TransportError", "OSError"})

    def _mark_dead(self, message: str) -> None:
        if self.state == "running":
            self.state = "dead"
            self.error = message + self._stderr.suffix()
            self._client = None

    async def _stop_owner(self) -> None:
        listener, self._listener = self._listener, None
        if listener is not None:
            listener.cancel()
            with contextlib.suppress(BaseException):
                await listener
        owner, self._owner = self._owner, None
        self._client = None
        if owner is None:
            return
        if self._stop is not None:
            self._stop.set()
        if self._ready is not None and self._ready.done() and not self._ready.cancelled():
            # A connected client shuts down politely (stdin closed, then signals) when told to stop.
            with contextlib.suppress(BaseException):
                await asyncio.wait_for(asyncio.shield(owner), _CLOSE_GRACE)
        if not owner.done():
            owner.cancel()  # still connecting (or not stopping): nothing polite to wait for
            with contextlib.suppress(BaseException):
                await owner
