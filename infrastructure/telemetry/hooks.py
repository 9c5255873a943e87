"""What other infrastructure calls around its requests, free when telemetry is off (no OpenTelemetry import).

A run with telemetry binds its ``Telemetry`` to the run's context (``bound``); the MCP client asks
``mcp_request`` around each request it sends: with no telemetry bound it yields None at the cost
of one context-variable read.
"""

from __future__ import annotations

import secrets
import sys
from collections.abc import Iterator, Mapping
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
def joined(carrier: Mapping[str, str]) -> Iterator[None]:
    """The W3C trace context of ``carrier`` is current for the block (as is, without OpenTelemetry installed)."""
    try:
        from opentelemetry import context
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator
    except ImportError:
        yield
        return
    token = context.attach(TraceContextTextMapPropagator().extract(carrier))
    try:
        yield
    finally:
        context.detach(token)


def current_trace(*, mint: bool = False) -> dict[str, str]:
    """The current W3C trace context as ``traceparent``/``tracestate`` entries (to hand to another process).

    Empty when no span is current (nothing of OpenTelemetry is imported then), unless ``mint``:
    then a new trace id is made up, so that what the receiver records is one trace all the same.
    """
    if "opentelemetry.trace" in sys.modules:
        from opentelemetry.trace.propagation.tracecontext import TraceContextTextMapPropagator

        carrier: dict[str, str] = {}
        TraceContextTextMapPropagator().inject(carrier)
        if carrier:
            return carrier
    if not mint:
        return {}
    return {"traceparent": f"00-{secrets.token_hex(16)}-{secrets.token_hex(8)}-01"}


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
