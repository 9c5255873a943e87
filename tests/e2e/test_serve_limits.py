"""``quorum serve`` against hostile clients: header size and count, slow heads and bodies, bad input, CORS.

Each attack is judged by its effect on a real server process: the connection closed, the status
answered, the server's peak memory, and the token holder still answered. Waits are on the socket
(its end, or an answer) with a generous bound; a trickle sends a byte each time the socket stayed
silent for a moment, so no sleep stands in for an event.
"""

from __future__ import annotations

import http.server
import re
import resource
import select
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import DEADLINE, Server, write_script

pytest.importorskip("starlette")

APP = "https://app.example"
CONFIG = f"""
[serve]
header_timeout = 1
body_timeout = 2
cors_origins = ["{APP}"]
"""
MiB = 1024 * 1024
PACE = 0.2
"""Seconds a trickle waits on the socket for an answer before it sends its next byte."""


@pytest.fixture
def server(cli: Cli) -> Iterator[Server]:
    cli.write("quorum.toml", CONFIG)
    running = Server(cli)
    yield running
    if running.proc.poll() is None:
        running.kill()


def connect(server: Server) -> socket.socket:
    return socket.create_connection(("127.0.0.1", server.port), timeout=DEADLINE)


def head(server: Server, method: str = "GET", path: str = "/v1/runs", *lines: str) -> bytes:
    """A request head with the token and ``lines``, without its closing blank line."""
    sent = [f"{method} {path} HTTP/1.1", f"Host: 127.0.0.1:{server.port}", f"Authorization: Bearer {server.token}"]
    return ("\r\n".join([*sent, *lines]) + "\r\n").encode()


def read_to_end(sock: socket.socket) -> bytes:
    """What the server sends until it closes the connection (a reset is a close)."""
    chunks = []
    try:
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    except ConnectionResetError:
        pass
    return b"".join(chunks)


def read_response(sock: socket.socket) -> bytes:
    """One whole response (head and ``Content-Length`` body) from a connection that stays open."""
    data = b""
    while b"\r\n\r\n" not in data:
        data += sock.recv(65536)
    head, _, body = data.partition(b"\r\n\r\n")
    length = int(re.search(rb"(?i)content-length: (\d+)", head).group(1))  # type: ignore[union-attr]
    while len(body) < length:
        body += sock.recv(65536)
    return data.partition(b"\r\n\r\n")[0] + b"\r\n\r\n" + body


def trickle(sock: socket.socket, data: bytes) -> bytes:
    """Send ``data`` a byte at a time until the server answers or closes; what it sent back.

    Before each byte the socket is watched for ``PACE`` seconds: the pace of the attack, and the
    moment the server's answer (or its end) is seen.
    """
    for byte in data:
        readable, _, _ = select.select([sock], [], [], PACE)
        if readable:
            return read_to_end(sock)
        try:
            sock.sendall(bytes([byte]))
        except (BrokenPipeError, ConnectionResetError):
            return read_to_end(sock)
    raise AssertionError(f"the server still waited after {len(data)} trickled bytes")


def peak_memory(server: Server) -> int:
    """The server process's peak resident memory, in bytes (Linux)."""
    status = Path(f"/proc/{server.proc.pid}/status").read_text()
    found = re.search(r"VmHWM:\s+(\d+) kB", status)
    assert found is not None
    return int(found.group(1)) * 1024


def test_a_huge_header_is_refused_before_it_is_buffered(server: Server) -> None:
    assert server.runs() == []  # the first request's imports are done before the peak is taken
    before = peak_memory(server)
    sent = 0
    with connect(server) as sock:
        sock.sendall(head(server) + b"X-Big: ")
        chunk = b"a" * MiB
        try:
            while sent < 96 * MiB:
                sock.sendall(chunk)
                sent += len(chunk)
        except (BrokenPipeError, ConnectionResetError):
            pass
        assert sent < 96 * MiB  # the server closed the connection long before the header ended
        answer = read_to_end(sock)
    assert answer == b"" or answer.startswith(b"HTTP/1.1 431 "), answer[:200]
    assert peak_memory(server) - before < 24 * MiB
    assert server.runs() == []  # and the token holder is answered


def test_too_many_headers_or_a_head_too_large_are_refused_with_431(server: Server) -> None:
    with server.client(server.token, **{"X-Big": "a" * 40_000}) as client:  # over 32 KiB, sent whole
        large = client.get("/v1/runs")
    assert large.status_code == 431 and large.json()["error"]["code"] == "headers_too_large"
    many = {f"X-Header-{n}": "1" for n in range(200)}
    with server.client(server.token, **many) as client:
        answer = client.get("/v1/runs")
    assert answer.status_code == 431, answer.text
    assert answer.json()["error"]["code"] == "headers_too_large"
    fine = {f"X-Header-{n}": "1" for n in range(20)}
    with server.client(server.token, **fine) as client:
        assert client.get("/v1/runs").status_code == 200


def test_a_head_that_never_ends_is_closed_after_the_header_timeout(server: Server) -> None:
    idle = connect(server)  # connected, says nothing
    unfinished = connect(server)
    unfinished.sendall(head(server))  # a whole head but its closing blank line
    slow = connect(server)
    slow.sendall(b"GET /v1/runs HTTP/1.1\r\n")
    try:
        assert trickle(slow, b"X-Slow: " + b"a" * 300) == b""  # a byte every PACE s does not keep it open
        assert read_to_end(idle) == b""
        assert read_to_end(unfinished) == b""
    finally:
        for sock in (idle, unfinished, slow):
            sock.close()
    assert server.runs() == []  # the token holder is answered


def test_half_open_connections_cannot_starve_the_token_holder(cli: Cli) -> None:
    cli.write("quorum.toml", "[serve]\nheader_timeout = 600\n")  # the deadline alone would be too late
    server = Server(cli)
    files = 128
    resource.prlimit(server.proc.pid, resource.RLIMIT_NOFILE, (files, files))  # as `ulimit -n 128`
    flood = [connect(server) for _ in range(files + 40)]  # more half-open connections than descriptors
    try:
        assert server.runs() == []  # the token holder is answered
        assert read_to_end(flood[0]) == b""  # the longest-waiting connections were closed to make room
    finally:
        for sock in flood:
            sock.close()
        server.kill()


def test_a_kept_alive_connection_cannot_trickle_its_next_head(server: Server) -> None:
    with connect(server) as sock:
        sock.sendall(head(server) + b"\r\n")
        first = read_response(sock)
        assert first.startswith(b"HTTP/1.1 200 ") and first.endswith(b'{"items":[]}'), first[:200]
        assert trickle(sock, b"GET /v1/runs HTTP/1.1\r\nX-Slow: " + b"a" * 300) == b""


def test_a_trickled_body_gets_408(server: Server, cli: Cli) -> None:
    model = write_script(cli, [{"text": "hello"}])
    with connect(server) as sock:
        sock.sendall(
            head(server, "POST", "/v1/runs", "Content-Type: application/json", "Content-Length: 1000") + b"\r\n"
        )
        answer = trickle(sock, f'{{"model": "{model}", "task": "'.encode() + b"x" * 900 + b'"}')
    assert answer.startswith(b"HTTP/1.1 408 "), answer[:200]
    assert b'"request_timeout"' in answer
    assert server.runs() == []  # no run started from a body that never arrived


def test_malformed_input_is_400_never_500(cli: Cli, server: Server) -> None:
    http = server.http
    run_id = server.start("hi", write_script(cli, [{"text": "hello"}]))
    list(server.events(run_id))
    deep = b"[" * 100_000 + b"]" * 100_000
    deep_object = b'{"a":' * 100_000 + b"1" + b"}" * 100_000
    events = f"/v1/runs/{run_id}/events"
    cases = {
        "limit ²": http.get("/v1/runs?limit=%C2%B2"),
        "limit ² in latin-1": http.get("/v1/runs?limit=%B2"),
        "limit of 5,000 digits": http.get("/v1/runs", params={"limit": "9" * 5000}),
        "limit 0": http.get("/v1/runs", params={"limit": "0"}),
        "limit -1": http.get("/v1/runs", params={"limit": "-1"}),
        "limit ٣ (Arabic-Indic)": http.get("/v1/runs", params={"limit": "٣"}),
        "Last-Event-ID ²": http.get(events, headers={"Last-Event-ID": "²".encode("latin-1")}),
        "Last-Event-ID ² in UTF-8": http.get(events, headers={"Last-Event-ID": "²".encode()}),
        "Last-Event-ID of 5,000 digits": http.get(events, headers={"Last-Event-ID": "9" * 5000}),
        "Last-Event-ID -5": http.get(events, headers={"Last-Event-ID": "-5"}),
        "run body nested 100,000 deep": http.post("/v1/runs", content=deep),
        "run object nested 100,000 deep": http.post("/v1/runs", content=deep_object),
        "decision nested 100,000 deep": http.post(f"/v1/runs/{run_id}/decisions", content=deep),
        "body not UTF-8": http.post("/v1/runs", content=b'{"task": "\xff\xfe"}'),
        "body a lone surrogate": http.post("/v1/runs", content=b'{"task": "\\ud800", "model": "test"}'),
        "body with a NUL": http.post("/v1/runs", content=b'{"task": "a\\u0000b", "model": "test"}'),
        "decision with a NUL": http.post(
            f"/v1/runs/{run_id}/decisions", content=b'{"call_id": "\\u0000", "approve": true}'
        ),
    }
    for name, answer in cases.items():
        assert answer.status_code == 400, (name, answer.status_code, answer.text)
        assert answer.json()["error"]["code"] == "bad_request", name
        assert "Traceback" not in answer.text
    assert [r["run_id"] for r in server.runs()] == [run_id]  # none of them started a run


def test_odd_run_ids_and_models_are_answered_without_a_500(cli: Cli, server: Server) -> None:
    http = server.http
    for run_id in ("%00", "a%00b", "x" * 5000, "%E2%80%AE", "..%2F..%2Fetc"):
        for path in ("", "/events", "/pending"):
            answer = http.get(f"/v1/runs/{run_id}{path}")
            assert answer.status_code == 404, (run_id, path, answer.text)
        decided = http.post(f"/v1/runs/{run_id}/decisions", json={"call_id": "x", "approve": True})
        assert decided.status_code == 404, (run_id, decided.text)
        assert http.post(f"/v1/runs/{run_id}/cancel").status_code == 404
    (cli.workspace / "binary.json").write_bytes(b"\xff\xfe\x00binary")
    for model in ("\x00", ":", "x:", ":y", "a" * 5000, "scripted:\x00", "scripted:binary.json"):
        answer = http.post("/v1/runs", json={"task": "hi", "model": model})
        assert answer.status_code == 400, (model, answer.text)
    answer = http.post("/v1/runs", json={"task": "hi", "model": "test", "parent": "\x00"})
    assert answer.status_code == 400, answer.text  # a NUL anywhere in a body is malformed input
    assert server.runs() == []


def test_cors_preflight_is_answered_for_a_configured_origin_only(server: Server) -> None:
    asks = {"Access-Control-Request-Method": "POST", "Access-Control-Request-Headers": "authorization,content-type"}
    with server.client(None, Origin=APP, **asks) as browser:  # a preflight carries no token
        preflight = browser.options("/v1/runs")
    assert preflight.status_code == 204, preflight.text
    assert preflight.headers["access-control-allow-origin"] == APP
    assert "POST" in preflight.headers["access-control-allow-methods"]
    allowed = preflight.headers["access-control-allow-headers"].lower()
    assert "authorization" in allowed and "content-type" in allowed and "last-event-id" in allowed
    assert "origin" in preflight.headers["vary"].lower()
    assert preflight.content == b""  # nothing read, nothing started

    with server.client(server.token, Origin=APP) as app:
        listed = app.get("/v1/runs")
    assert listed.status_code == 200 and listed.headers["access-control-allow-origin"] == APP
    with server.client(None, Origin=APP) as anonymous:  # the token is still needed for the request itself
        refused = anonymous.get("/v1/runs")
    assert refused.status_code == 401 and refused.headers["access-control-allow-origin"] == APP

    with server.client(None, Origin="https://evil.example", **asks) as evil:
        foreign = evil.options("/v1/runs")
    assert foreign.status_code == 403
    assert not any(name.startswith("access-control-") for name in foreign.headers)
    with server.client(server.token, Origin="https://evil.example") as evil:
        foreign_get = evil.get("/v1/runs")
    assert foreign_get.status_code == 403
    assert not any(name.startswith("access-control-") for name in foreign_get.headers)
    with server.client(None, **asks) as no_origin:  # an OPTIONS that is no browser's preflight needs the token
        assert no_origin.options("/v1/runs").status_code == 401
    with server.client(server.token) as own:  # same-origin and tool requests get no CORS headers
        assert not any(name.startswith("access-control-") for name in own.get("/v1/runs").headers)


class _Page(http.server.BaseHTTPRequestHandler):
    """An empty page: the origin a browser's requests come from."""

    def do_GET(self) -> None:
        body = b"<!doctype html><title>another origin</title>"
        self.send_response(200)
        self.send_header("Content-Type", "text/html")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@contextmanager
def origin_server() -> Iterator[str]:
    """A page on another local origin (another port): its origin, ``http://127.0.0.1:PORT``."""
    pages = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _Page)
    thread = threading.Thread(target=pages.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{pages.server_address[1]}"
    finally:
        pages.shutdown()
        pages.server_close()
        thread.join(DEADLINE)


FETCH = """async ([url, token]) => {
  try {
    const headers = {"Authorization": "Bearer " + token, "Content-Type": "application/json"};
    const body = JSON.stringify({task: "hi", model: "test"});
    const started = await fetch(url + "/v1/runs", {method: "POST", headers, body});
    const listed = await fetch(url + "/v1/runs", {headers});
    return {started: started.status, listed: (await listed.json()).items.length};
  } catch (error) {
    return {refused: String(error)};
  }
}"""


def test_a_page_on_a_configured_origin_calls_the_api_from_a_real_browser(cli: Cli) -> None:
    from tests.support.browser import chromium

    with origin_server() as app, origin_server() as other, chromium() as chrome:
        cli.write("quorum.toml", f'[serve]\ncors_origins = ["{app}"]\n')
        server = Server(cli)
        try:
            page = chrome.new_context().new_page()
            page.goto(app + "/")
            assert page.evaluate(FETCH, [server.base, server.token]) == {"started": 201, "listed": 1}
            page.goto(other + "/")  # not configured: the browser lets the page read nothing
            refused = page.evaluate(FETCH, [server.base, server.token])
            assert "refused" in refused, refused
            assert len(server.runs()) == 1  # its POST's preflight was refused: nothing started
        finally:
            server.kill()
