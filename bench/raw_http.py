"""A minimal HTTP/1.1 client over asyncio streams, for the serve benchmark's clients.

The benchmark measures the server: with httpx, 200 connections in one pool cost the *client* more
CPU than the server spends (its connection assignment walks every open connection per request),
and on a 2-core machine that CPU is taken from the server. Each ``RawClient`` is one keep-alive
connection, as one browser tab or script would hold; it speaks just what the benchmark needs
(a JSON POST, a chunked event stream).
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any


class RawClient:
    """One keep-alive HTTP/1.1 connection to ``host:port`` sending ``Authorization: Bearer token``."""

    def __init__(self, host: str, port: int, token: str) -> None:
        self._host, self._port = host, port
        self._auth = f"Authorization: Bearer {token}\r\nHost: {host}:{port}\r\n"
        self._reader: asyncio.StreamReader | None = None
        self._writer: asyncio.StreamWriter | None = None

    async def __aenter__(self) -> RawClient:
        self._reader, self._writer = await asyncio.open_connection(self._host, self._port)
        return self

    async def __aexit__(self, *exc: object) -> None:
        assert self._writer is not None
        self._writer.close()

    async def post_json(self, path: str, body: dict[str, Any]) -> tuple[int, Any]:
        """POST ``body`` as JSON; the status and the decoded JSON answer."""
        data = json.dumps(body).encode()
        head = (
            f"POST {path} HTTP/1.1\r\n{self._auth}Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
        )
        assert self._writer is not None and self._reader is not None
        self._writer.write(head.encode() + data)
        status, headers = await self._head()
        answer = await self._reader.readexactly(int(headers["content-length"]))
        return status, json.loads(answer)

    async def stream(self, path: str) -> AsyncIterator[bytes]:
        """GET ``path`` and yield the chunks of its chunked body until the last one."""
        assert self._writer is not None and self._reader is not None
        self._writer.write(f"GET {path} HTTP/1.1\r\n{self._auth}\r\n".encode())
        status, headers = await self._head()
        assert status == 200 and headers.get("transfer-encoding") == "chunked", (status, headers)
        while True:
            size = int((await self._reader.readline()).split(b";")[0], 16)
            if size == 0:
                await self._reader.readline()
                return
            chunk = await self._reader.readexactly(size + 2)
            yield chunk[:-2]

    async def _head(self) -> tuple[int, dict[str, str]]:
        assert self._reader is not None
        lines = (await self._reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
        status = int(lines[0].split()[1])
        headers = {}
        for line in lines[1:]:
            if ":" in line:
                name, value = line.split(":", 1)
                headers[name.strip().lower()] = value.strip()
        return status, headers
