"""The ASGI application: the routes behind the ``Guard``, JSON errors, and the runtime's lifespan."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterable
from contextlib import asynccontextmanager
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse

from quorum.composition.telemetry import CallerTrace
from quorum.infrastructure.review.settings import ReviewSettings
from quorum.serve.errors import HANDLERS, error_response
from quorum.serve.expiry import watch_approvals
from quorum.serve.guard import BODY_SECONDS, MAX_HEAD, MAX_HEADERS, BodyTimeout, BodyTooLarge, Guard
from quorum.serve.routes import ROUTES
from quorum.serve.runs import RunHub
from quorum.serve.web import PAGE_ROUTES

CLOSE = {"Connection": "close"}  # the rest of the body is not read: the connection cannot carry another request


async def _too_large(request: Request, error: Exception) -> JSONResponse:
    return error_response(413, "the body is larger than the server accepts ([serve] max_body_bytes)", CLOSE)


async def _too_slow(request: Request, error: Exception) -> JSONResponse:
    return error_response(408, "the body did not arrive in time ([serve] body_timeout)", CLOSE)


def build_app(
    hub: RunHub,
    *,
    token: str,
    own_names: Iterable[str],
    origins: Iterable[str],
    max_body: int,
    max_headers: int = MAX_HEADERS,
    max_head: int = MAX_HEAD,
    body_timeout: float = BODY_SECONDS,
    any_address: bool = False,
) -> Guard:
    """The server's application: ``hub``'s runtime is opened at startup and closed after its runs at shutdown.

    ``max_body``, ``max_headers``, ``max_head`` and ``body_timeout`` are the ``Guard``'s limits (``[serve]``).
    """

    @asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        hub.runtime.open()
        await hub.runtime.require_sandbox(low_risk_only=False)
        timeout = hub.runtime.container.settings().section(ReviewSettings).approval_timeout
        watcher = asyncio.create_task(watch_approvals(hub, timeout), name="approval timeout")
        try:
            yield
        finally:
            watcher.cancel()
            hub.begin_stop()
            await hub.drain()  # every run in flight records its end (cancelled) before the log closes
            await hub.runtime.aclose()

    handlers: dict[Any, Any] = {**HANDLERS, BodyTooLarge: _too_large, BodyTimeout: _too_slow}
    app = Starlette(routes=[*ROUTES, *PAGE_ROUTES], exception_handlers=handlers, lifespan=lifespan)
    app.state.hub = hub
    traced = CallerTrace(app, hub.runtime.container.telemetry)  # runs join the caller's traceparent
    return Guard(
        traced,
        token=token,
        own_names=own_names,
        origins=origins,
        max_body=max_body,
        max_headers=max_headers,
        max_head=max_head,
        body_timeout=body_timeout,
        any_address=any_address,
    )
