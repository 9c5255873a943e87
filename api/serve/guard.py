"""``Guard``: the ASGI layer in front of every route: Host, Origin, token, headers, body size and time.

It wraps the whole application, so a route added later cannot skip it. An HTTP request is checked
in order:

1. ``Host`` must be a loopback name or one of the server's own names (DNS rebinding) → 421.
2. An ``Origin`` header must be the server's own origin or in ``[serve] cors_origins`` (CSRF) → 403.
   A configured origin's CORS preflight is answered here (204, no token: ``quorum.serve.cors``),
   and every response to that origin carries its ``Access-Control-Allow-Origin``.
3. Every path but ``/v1/health`` and the page (``/``, ``/ui/…``, no secret in it) needs
   ``Authorization: Bearer TOKEN`` (constant-time) → 401.
4. A head over ``max_head`` bytes or with more than ``max_headers`` fields → 431 (the protocol
   bounds what it buffers of a head before: decision 201; this bounds a head that came whole).
5. A body over ``max_body`` is refused (413) from its ``Content-Length`` before reading, and while
   streamed otherwise; a body not complete within ``body_timeout`` seconds of the head → 408.

Every other scope type but ``lifespan`` is refused: a WebSocket is closed before it is accepted
(uvicorn answers 403), and an unknown type raises, as the ASGI specification asks.
"""

from __future__ import annotations

import asyncio
import ipaddress
import time
from collections.abc import Iterable
from typing import Any

from quorum.serve import cors
from quorum.serve.token import token_matches
from quorum.serve.web import PAGE_PATHS

LOOPBACK_NAMES = frozenset({"localhost", "127.0.0.1", "::1"})
PUBLIC_PATHS = frozenset({"/v1/health", *PAGE_PATHS})  # the page holds no secret: it asks for the token
BODY_SECONDS = 30.0
"""The default of ``body_timeout``: ``[serve] body_timeout``."""
MAX_HEADERS = 100
"""The default of ``max_headers``: ``[serve] max_headers``."""
MAX_HEAD = 32 * 1024
"""The default of ``max_head``: ``[serve] max_header_bytes``."""
LENGTH_DIGITS = 18
"""A ``Content-Length`` with more digits is larger than any ``max_body`` (and than ``int`` parsing likes)."""


class BodyTooLarge(Exception):
    """The request body passed ``max_body_bytes`` while it was read (HTTP 413)."""


class BodyTimeout(Exception):
    """The request body did not arrive in time (HTTP 408)."""


def host_name(host: str) -> str:
    """``host`` without its port, brackets and letter case: ``[::1]:8765`` → ``::1``."""
    host = host.strip().lower()
    if host.startswith("["):
        return host[1 : host.find("]")] if "]" in host else host
    return host.rsplit(":", 1)[0] if host.count(":") == 1 else host


def _is_loopback(name: str) -> bool:
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


def _is_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


class Guard:
    """ASGI middleware enforcing the module docstring's checks before ``app`` sees a request.

    Args:
        app: the application.
        token: the bearer token.
        own_names: host names the server answers to besides loopback names (its bind address,
            the machine's names when bound to every interface with ``--allow-remote``).
        origins: origins accepted besides the server's own (``[serve] cors_origins``).
        max_body: the largest request body, in bytes.
        max_headers: the most header fields a request may have.
        max_head: the largest request head (target and header fields), in bytes.
        body_timeout: seconds a request's whole body may take, from its head.
        any_address: accept any IP address as ``Host`` (bound to every interface): a DNS
            rebinding attack needs a name, never an address.
    """

    def __init__(
        self,
        app: Any,
        *,
        token: str,
        own_names: Iterable[str],
        origins: Iterable[str],
        max_body: int,
        max_headers: int = MAX_HEADERS,
        max_head: int = MAX_HEAD,
        body_timeout: float = BODY_SECONDS,
        any_address: bool = False,
    ) -> None:
        self.app = app
        self._token = token
        self._names = {host_name(n) for n in own_names if n}
        self._origins = {o.rstrip("/").lower() for o in origins}
        self._max_body = max_body
        self._max_headers = max_headers
        self._max_head = max_head
        self._body_timeout = body_timeout
        self._any_address = any_address

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] == "lifespan":
            await self.app(scope, receive, send)
            return
        if scope["type"] == "websocket":  # no route speaks it: closed before it is accepted (HTTP 403)
            await receive()  # websocket.connect
            await send({"type": "websocket.close", "code": 1008})
            return
        if scope["type"] != "http":
            raise ValueError(f"quorum serve does not handle {scope['type']!r} connections")
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        refusal = self._host_or_origin(scope, headers)
        origin = headers.get("origin", "")
        if refusal is None and origin.rstrip("/").lower() in self._origins:  # a page on a cors_origins origin
            if cors.is_preflight(scope, headers):
                await _send(send, 204, b"", cors.preflight_headers(origin))
                return
            send = cors.labelled(send, origin)  # the page may read every answer, errors included
        refusal = refusal or self._refusal(scope, headers)
        if refusal is not None:
            await _send_error(send, *refusal)
            return
        await self.app(scope, self._limited(receive), send)

    def _host_or_origin(self, scope: dict[str, Any], headers: dict[str, str]) -> tuple[int, str] | None:
        host = headers.get("host", "")
        name = host_name(host)
        if not host or not (_is_loopback(name) or name in self._names or (self._any_address and _is_address(name))):
            return 421, "this server does not answer to that host name"
        origin = headers.get("origin")
        if origin is not None:
            own = f"{scope.get('scheme', 'http')}://{host.lower()}"
            if origin.rstrip("/").lower() not in {own, *self._origins}:
                return 403, "requests from that origin are refused"
        return None

    def _refusal(self, scope: dict[str, Any], headers: dict[str, str]) -> tuple[int, str] | None:
        if scope.get("path", "") not in PUBLIC_PATHS and not token_matches(headers.get("authorization"), self._token):
            return 401, "send the server's token: Authorization: Bearer TOKEN"
        fields = scope.get("headers", ())
        if len(fields) > self._max_headers:
            return 431, f"the request has more than {self._max_headers} header fields"
        target = len(scope.get("raw_path", b"")) + len(scope.get("query_string", b""))
        if target + sum(len(name) + len(value) + 4 for name, value in fields) > self._max_head:
            return 431, f"the request head is larger than {self._max_head} bytes"
        length = headers.get("content-length", "").strip()
        if length:
            if not (length.isascii() and length.isdigit()):
                return 400, "Content-Length is not a number"
            if len(length) > LENGTH_DIGITS or int(length) > self._max_body:
                return 413, f"the body is larger than {self._max_body} bytes"
        return None

    def _limited(self, receive: Any) -> Any:
        """``receive`` refusing a body over ``max_body`` and one not complete by the deadline."""
        seen = 0
        complete = False
        deadline = time.monotonic() + self._body_timeout  # for the whole body: a trickle does not extend it

        async def limited() -> dict[str, Any]:
            nonlocal seen, complete
            if complete:  # the body is read: later receives wait for the client to leave (a stream)
                after: dict[str, Any] = await receive()
                return after
            try:
                message: dict[str, Any] = await asyncio.wait_for(receive(), max(deadline - time.monotonic(), 0))
            except TimeoutError:
                raise BodyTimeout from None
            if message.get("type") == "http.request":
                seen += len(message.get("body", b""))
                if seen > self._max_body:
                    raise BodyTooLarge
                complete = not message.get("more_body", False)
            return message

        return limited


async def _send_error(send: Any, status: int, message: str) -> None:
    import json

    from quorum.serve.errors import CODES

    body = json.dumps({"error": {"code": CODES.get(status, "error"), "message": message}}).encode()
    headers = [(b"content-type", b"application/json")]
    if status == 401:
        headers.append((b"www-authenticate", b"Bearer"))
    headers.append((b"connection", b"close"))  # a body it may have sent is not read: no next request on it
    await _send(send, status, body, headers)


async def _send(send: Any, status: int, body: bytes, headers: list[tuple[bytes, bytes]]) -> None:
    sized = [*headers, (b"content-length", str(len(body)).encode())]
    await send({"type": "http.response.start", "status": status, "headers": sized})
    await send({"type": "http.response.body", "body": body})
