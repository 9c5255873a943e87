"""``LoopbackRedirect``: the one-shot HTTP listener on 127.0.0.1 that receives the login redirect.

The authorization server sends the user's browser to ``http://127.0.0.1:PORT/callback?code=…&state=…``
(RFC 8252 loopback redirect). The listener answers that one request with a short page and hands the
code to the SDK's flow; anything else (another path, a favicon) gets 404 and is ignored. State is
checked by the SDK, not here.
"""

from __future__ import annotations

import asyncio
import contextlib
from urllib.parse import parse_qs, urlsplit

CALLBACK_PATH = "/callback"
_PAGE = (
    b"<!doctype html><meta charset=utf-8><title>Quorum</title>"
    b"<p>%s You can close this window and return to the terminal.</p>"
)


class LoopbackRedirect:
    """Listens on ``127.0.0.1:port`` (0: a free port) until one callback arrives.

    Use as ``async with``; ``redirect_uri`` is known once entered; ``wait()`` returns the query
    parameters of the callback (``code``, ``state``, ``iss`` or ``error``…), one value each.
    """

    def __init__(self, port: int = 0) -> None:
        self.port = port
        self._server: asyncio.Server | None = None
        self._result: asyncio.Future[dict[str, str]] | None = None

    @property
    def redirect_uri(self) -> str:
        return f"http://127.0.0.1:{self.port}{CALLBACK_PATH}"

    async def __aenter__(self) -> LoopbackRedirect:
        self._result = asyncio.get_running_loop().create_future()
        self._server = await asyncio.start_server(self._serve, "127.0.0.1", self.port)
        self.port = self._server.sockets[0].getsockname()[1]
        return self

    async def __aexit__(self, *exc: object) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()

    async def wait(self) -> dict[str, str]:
        """The callback's query parameters (waits for the browser; the caller bounds the wait)."""
        assert self._result is not None, "enter the listener first"
        return await asyncio.shield(self._result)

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        try:
            head = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), 30)
            target = head.split(b"\r\n", 1)[0].split(b" ")[1].decode("ascii", "replace")
        except (asyncio.IncompleteReadError, asyncio.LimitOverrunError, TimeoutError, IndexError, OSError):
            writer.close()
            return
        url = urlsplit(target)
        if url.path != CALLBACK_PATH or self._result is None or self._result.done():
            await _answer(writer, b"404 Not Found", b"Nothing here.")
            return
        params = {key: values[0] for key, values in parse_qs(url.query).items()}
        message = b"Login failed." if "error" in params else b"Logged in."
        await _answer(writer, b"200 OK", message)
        self._result.set_result(params)


async def _answer(writer: asyncio.StreamWriter, status: bytes, message: bytes) -> None:
    body = _PAGE % message
    writer.write(
        b"HTTP/1.1 " + status + b"\r\nContent-Type: text/html; charset=utf-8\r\n"
        b"Content-Length: " + str(len(body)).encode() + b"\r\nConnection: close\r\n\r\n" + body
    )
    with contextlib.suppress(Exception):
        await writer.drain()
    writer.close()
