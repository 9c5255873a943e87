"""What other infrastructure calls around its requests, free when telemetry is off (no OpenTelemetry import).

A run with telemetry binds its ``Telemetry`` to the run's context (``bound``); the MCP client asks
``mcp_request`` around each request it sends: with no telemetry bound it yields None at the cost
of one context-variable read.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from quorum.infrastructure.telemetry.core import Telemetry

_current: ContextVar[Telemetry | None] = ContextVar("quorum_telemetry", default=None)


@contextmanager
def bound(telemetry: Telemetry) -> Iterator[None]:
    """``telemetry`` is the one ``mcp_request`` uses in this context (and the tasks it starts) for the block."""
    token = _current.set(telemetry)
    try:
        yield
    finally:
        _current.reset(token)


@contextmanager
def mcp_request(method: str, target: str | None, *, server: str, transport: str) -> Iterator[dict[str, Any] | None]:
    """A client span ``{method} {target}`` for one MCP request, per the MCP semantic conventions.

    Yields the ``params._meta`` entries carrying the trace context (``traceparent``, ``tracestate``)
    so an instrumented server joins the trace, or None when no telemetry is bound. ``transport``:
    ``stdio`` or ``http``.
    """
    telemetry = _current.get()
    if telemetry is None:
        yield None
        return
    with telemetry.mcp_request(method, target, server=server, transport=transport) as meta:
        yield meta
