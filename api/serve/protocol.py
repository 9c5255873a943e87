"""The HTTP/1.1 protocol the server runs: uvicorn's h11 protocol with a deadline for request heads.

uvicorn bounds a request head's size (``h11_max_incomplete_event_size``: h11 refuses a longer head
with its 431 hint) but has no deadline for it: a connection that never finishes its head is kept
for ever, and its file descriptor with it. Here a connection on which no request is being served
(just opened, or after a response) is closed once ``header_timeout`` seconds pass without a
complete head, whatever bytes trickle in meanwhile; and connections waiting so may hold at most
a quarter of the process's file descriptors: beyond that, the one that has waited longest is
closed, so a flood of half-open connections cannot leave the token holder without one. A head
over the size limit is answered 431 (uvicorn says 400) and the connection closed. Decision 201
says why h11, and why here.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Any, ClassVar

import h11
from uvicorn.protocols.http.h11_impl import H11Protocol


class HeadDeadlineH11Protocol(H11Protocol):
    """uvicorn's ``H11Protocol`` closing connections whose request head does not arrive in time.

    ``header_timeout`` and ``max_header_bytes`` are class attributes: ``protocol_class`` makes a
    subclass with the server's values, which uvicorn instantiates for each connection.
    """

    header_timeout: ClassVar[float] = 10.0
    max_header_bytes: ClassVar[int] = 32 * 1024
    waiting: ClassVar[dict[HeadDeadlineH11Protocol, None]] = {}
    """The server's connections waiting for a head, the longest-waiting first (one dict per server's class)."""

    _head_deadline: asyncio.TimerHandle | None = None

    def connection_made(self, transport: asyncio.Transport) -> None:  # type: ignore[override]
        super().connection_made(transport)
        self._arm()
        while len(self.waiting) > waiting_cap():
            next(iter(self.waiting))._close()

    def connection_lost(self, exc: Exception | None) -> None:
        self._disarm()
        super().connection_lost(exc)

    def data_received(self, data: bytes) -> None:
        super().data_received(data)
        if self.cycle is not None and not self.cycle.response_complete:  # a head arrived: a request is served
            self._disarm()

    def on_response_complete(self) -> None:
        super().on_response_complete()
        if not self.transport.is_closing() and (self.cycle is None or self.cycle.response_complete):
            self._arm()  # the next head (or the rest of an unread body) must come in time too

    def send_400_response(self, msg: str) -> None:
        if self.conn.their_state is h11.ERROR and len(self.conn.trailing_data[0]) > self.max_header_bytes:
            self._send_431()  # h11 stopped at the size limit: say so
            return
        super().send_400_response(msg)

    def _send_431(self) -> None:
        body = b'{"error": {"code": "headers_too_large", "message": "the request head is too large"}}'
        headers = [(b"content-type", b"application/json"), (b"connection", b"close")]
        for event in (h11.Response(status_code=431, headers=headers), h11.Data(data=body), h11.EndOfMessage()):
            self.transport.write(self.conn.send(event) or b"")
        self.transport.close()

    def _arm(self) -> None:
        self._disarm()
        self._head_deadline = self.loop.call_later(self.header_timeout, self._close)
        self.waiting[self] = None

    def _disarm(self) -> None:
        self.waiting.pop(self, None)
        if self._head_deadline is not None:
            self._head_deadline.cancel()
            self._head_deadline = None

    def _close(self) -> None:
        self._disarm()
        if not self.transport.is_closing():
            self.transport.close()


def waiting_cap() -> int:
    """How many connections may wait for a head: a quarter of the file descriptors (at least 16)."""
    with contextlib.suppress(ImportError, OSError, ValueError):
        import resource  # not on Windows

        soft = resource.getrlimit(resource.RLIMIT_NOFILE)[0]
        if soft != resource.RLIM_INFINITY:
            return max(16, soft // 4)
    return 1024


def protocol_class(*, header_timeout: float, max_header_bytes: int) -> type[HeadDeadlineH11Protocol]:
    """The protocol class for ``uvicorn.Config(http=...)`` with these limits."""
    limits: dict[str, Any] = {"header_timeout": header_timeout, "max_header_bytes": max_header_bytes, "waiting": {}}
    return type("ServeH11Protocol", (HeadDeadlineH11Protocol,), limits)
