"""A scripted HTTP/1.1 server on 127.0.0.1 in a background thread, recording every request.

It knows no protocol: a ``render`` function turns the next script item and the request into a
``Reply``. Replies are JSON bodies, chunked SSE streams (which can stop without the final chunk,
which the client sees as a dropped connection), or no response at all. The protocol-free items
``Raw`` and ``SseRaw`` (hostile bytes, streams that stall or never end) are served as they are.
"""

from __future__ import annotations

import contextlib
import json
import socket
import threading
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

from tests.support.script import Raw, SseRaw


@dataclass(frozen=True)
class Recorded:
    """One request as received: ``body`` is the parsed JSON."""

    method: str
    path: str
    headers: dict[str, str]
    body: Any


@dataclass
class JsonReply:
    status: int
    body: Any
    headers: dict[str, str] = field(default_factory=dict)


@dataclass
class SseReply:
    frames: list[str]
    drop_after: int | None = None
    end_after: int | None = None
    gate: threading.Event | None = None
    gate_after: int = 0


@dataclass
class NoReply:
    wait: threading.Event | None = None


Reply = JsonReply | SseReply | NoReply | Raw | SseRaw

RELEASE_WAIT = 60.0
"""Longest a hanging reply waits for its release: a forgotten release cannot keep a thread forever."""


class ScriptedHttpServer:
    """Serves script items in order; ``requests`` holds what arrived, ``unexpected`` extra requests."""

    def __init__(self, render: Callable[[Any, Recorded], Reply]) -> None:
        self._render = render
        self._script: deque[Any] = deque()
        self._lock = threading.Lock()
        self.requests: list[Recorded] = []
        self.unexpected = 0
        self._httpd = _QuietServer(("127.0.0.1", 0), _Handler)
        self._httpd.daemon_threads = True
        self._httpd.block_on_close = False
        self._httpd.owner = self  # type: ignore[attr-defined]
        self.url = f"http://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, kwargs={"poll_interval": 0.05})

    def start(self) -> ScriptedHttpServer:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join()

    def enqueue(self, *items: Any) -> None:
        with self._lock:
            self._script.extend(items)

    @property
    def remaining(self) -> int:
        with self._lock:
            return len(self._script)

    def bodies(self) -> list[Any]:
        return [r.body for r in self.requests]

    def _next(self, record: Recorded) -> Reply:
        with self._lock:
            self.requests.append(record)
            item = self._script.popleft() if self._script else None
            if item is None:
                self.unexpected += 1
        if item is None:  # 400: the SDK does not retry it, so the test fails at once
            return JsonReply(400, {"error": {"message": "the test script is exhausted", "type": "script"}})
        if isinstance(item, Raw | SseRaw):
            return item
        try:
            return self._render(item, record)
        except Exception as error:  # a broken script must fail the test, not hang it in SDK retries
            with self._lock:
                self.unexpected += 1
            return JsonReply(400, {"error": {"message": f"render failed: {error!r}", "type": "script"}})


class _QuietServer(ThreadingHTTPServer):
    """Clients that give up on a hostile reply reset the connection: expected, not worth a traceback."""

    def handle_error(self, request: Any, client_address: Any) -> None:
        import sys

        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body go out in separate writes: no 40 ms stalls

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        record = Recorded(
            method=self.command,
            path=self.path,
            headers={k.lower(): v for k, v in self.headers.items()},
            body=json.loads(raw) if raw else None,
        )
        reply = self.server.owner._next(record)  # type: ignore[attr-defined]
        if isinstance(reply, JsonReply):
            self._json(reply)
        elif isinstance(reply, SseReply):
            self._sse(reply)
        elif isinstance(reply, Raw | SseRaw):
            try:
                self._raw(reply) if isinstance(reply, Raw) else self._sse_raw(reply)
            except OSError:  # the client gave up first: that is the point of these replies
                self.close_connection = True
        else:
            if reply.wait is not None:
                reply.wait.wait(10)
            self._drop()

    do_GET = do_POST

    def _json(self, reply: JsonReply) -> None:
        data = json.dumps(reply.body).encode()
        self.send_response(reply.status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(data)

    def _sse(self, reply: SseReply) -> None:
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for index, frame in enumerate(reply.frames):
            if reply.drop_after is not None and index == reply.drop_after:
                self._drop()
                return
            if reply.end_after is not None and index == reply.end_after:
                break
            if reply.gate is not None and index == reply.gate_after:
                reply.gate.wait(10)
            data = frame.encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.write(b"0\r\n\r\n")

    def _raw(self, reply: Raw) -> None:
        self.send_response(reply.status)
        if reply.content_type is not None:
            self.send_header("Content-Type", reply.content_type)
        length = reply.content_length if reply.content_length is not None else len(reply.body)
        self.send_header("Content-Length", str(length))
        for name, value in reply.headers.items():
            self.send_header(name, value)
        self.end_headers()
        self.wfile.write(reply.body)
        self.wfile.flush()
        if reply.release is None:
            return
        if reply.trickle is None:
            reply.release.wait(RELEASE_WAIT)
        else:
            while not reply.release.wait(reply.trickle):
                self.wfile.write(b" ")
                self.wfile.flush()
        self._drop()

    def _sse_raw(self, reply: SseRaw) -> None:
        self.send_response(reply.status)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        for line in reply.lines:
            self._chunk(line.encode() if isinstance(line, str) else line)
        if reply.then == "drop":
            self._drop()
            return
        if reply.then in ("hang", "keepalive"):
            assert reply.release is not None, f"SseRaw(then={reply.then!r}) needs a release event"
            if reply.then == "hang":
                reply.release.wait(RELEASE_WAIT)
            else:
                while not reply.release.wait(reply.keepalive):
                    self._chunk(b": keepalive\n\n")
            self._drop()
            return
        self.wfile.write(b"0\r\n\r\n")

    def _chunk(self, data: bytes) -> None:
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
        self.wfile.flush()

    def _drop(self) -> None:
        self.close_connection = True
        with contextlib.suppress(OSError):
            self.connection.shutdown(socket.SHUT_RDWR)
