"""CORS for ``[serve] cors_origins``: a configured origin's preflight answered, its responses labelled.

A browser page on a configured origin (``https://app.example``) calling the API first sends a
preflight (``OPTIONS`` with ``Access-Control-Request-Method``), which carries no token: the
``Guard`` answers it here with what the API accepts. Every response to that origin then names it
in ``Access-Control-Allow-Origin``, so the page can read the answer. Other origins get neither
(the ``Guard`` refuses them, 403); same-origin pages and tools need neither.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

ALLOW_METHODS = b"GET, POST"
ALLOW_HEADERS = b"Authorization, Content-Type, Last-Event-ID"
MAX_AGE = b"600"
"""Seconds a browser may keep a preflight's answer."""


def is_preflight(scope: Mapping[str, Any], headers: Mapping[str, str]) -> bool:
    """Whether the request is a browser's CORS preflight."""
    return scope.get("method") == "OPTIONS" and "origin" in headers and "access-control-request-method" in headers


def allow_headers(origin: str) -> list[tuple[bytes, bytes]]:
    """The headers every response to the configured ``origin`` carries (the origin as the browser sent it)."""
    return [(b"access-control-allow-origin", origin.encode("latin-1")), (b"vary", b"Origin")]


def preflight_headers(origin: str) -> list[tuple[bytes, bytes]]:
    """The headers of the answer (204) to a configured ``origin``'s preflight."""
    return [
        *allow_headers(origin),
        (b"access-control-allow-methods", ALLOW_METHODS),
        (b"access-control-allow-headers", ALLOW_HEADERS),
        (b"access-control-max-age", MAX_AGE),
    ]


def labelled(send: Any, origin: str) -> Any:
    """``send`` adding ``allow_headers(origin)`` to the response's start."""
    added = allow_headers(origin)

    async def labelling(message: dict[str, Any]) -> None:
        if message.get("type") == "http.response.start":
            kept = [(k, v) for k, v in message.get("headers", []) if k.lower() not in {b"access-control-allow-origin"}]
            message = {**message, "headers": [*kept, *added]}
        await send(message)

    return labelling
