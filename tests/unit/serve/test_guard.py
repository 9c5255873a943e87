"""The guard's decisions on Host, Origin, token and body size, without a server."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from quorum.serve.guard import Guard, host_name
from quorum.serve.token import token_matches


@pytest.mark.parametrize(
    ("host", "name"),
    [("localhost:8765", "localhost"), ("[::1]:8765", "::1"), ("EXAMPLE.org", "example.org"), ("::1", "::1")],
)
def test_host_name_drops_the_port_and_the_brackets(host: str, name: str) -> None:
    assert host_name(host) == name


def call(guard: Guard, path: str = "/v1/runs", **headers: str) -> int:
    sent: list[dict[str, Any]] = []
    reached: list[bool] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(True)
        await send({"type": "http.response.start", "status": 200, "headers": []})

    async def receive() -> dict[str, Any]:
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    guard.app = app
    raw = [(k.replace("_", "-").lower().encode(), v.encode()) for k, v in headers.items()]
    asyncio.run(guard({"type": "http", "path": path, "scheme": "http", "headers": raw}, receive, send))
    status: int = sent[0]["status"]
    assert reached == ([True] if status == 200 else [])  # a refused request never reaches the app
    return status


def guard(**options: Any) -> Guard:
    defaults: dict[str, Any] = {"token": "t0k3n", "own_names": ["127.0.0.1"], "origins": [], "max_body": 100}
    return Guard(None, **{**defaults, **options})


def test_the_checks_in_order() -> None:
    auth = "Bearer t0k3n"
    assert call(guard(), Host="127.0.0.1:8765", Authorization=auth) == 200
    assert call(guard(), Host="localhost:8765", Authorization=auth) == 200
    assert call(guard(), Host="rebound.example:8765", Authorization=auth) == 421
    assert call(guard(), Authorization=auth) == 421  # no Host at all
    assert call(guard(), Host="10.0.0.5:8765", Authorization=auth) == 421
    assert call(guard(any_address=True), Host="10.0.0.5:8765", Authorization=auth) == 200
    assert call(guard(any_address=True), Host="rebound.example", Authorization=auth) == 421
    assert call(guard(), Host="localhost:8765", Origin="http://localhost:8765", Authorization=auth) == 200
    assert call(guard(), Host="localhost:8765", Origin="http://evil.example", Authorization=auth) == 403
    allowed = guard(origins=["https://app.example/"])
    assert call(allowed, Host="localhost:8765", Origin="https://app.example", Authorization=auth) == 200
    assert call(guard(), Host="localhost:8765") == 401
    assert call(guard(), "/v1/health", Host="localhost:8765") == 200
    assert call(guard(), Host="localhost:8765", Authorization="Bearer wrong") == 401
    assert call(guard(), Host="localhost:8765", Authorization=auth, Content_Length="101") == 413
    assert call(guard(), Host="localhost:8765", Authorization=auth, Content_Length="x") == 400


def test_token_matches_only_a_bearer_of_the_token() -> None:
    assert token_matches("Bearer abc", "abc") and token_matches("bearer abc", "abc")
    assert not token_matches("Basic abc", "abc") and not token_matches("Bearer abd", "abc")
    assert not token_matches(None, "abc") and not token_matches("Bearer ", "")


def test_a_head_too_large_or_with_too_many_fields_is_431_and_odd_lengths_never_raise() -> None:
    auth = "Bearer t0k3n"
    many = {f"X_N{n}": "1" for n in range(11)}  # 13 fields with Host and Authorization
    assert call(guard(max_headers=12), Host="localhost", Authorization=auth, **many) == 431
    assert call(guard(max_headers=12), Host="localhost", Authorization=auth) == 200
    assert call(guard(max_head=200), Host="localhost", Authorization=auth, X_Big="a" * 200) == 431
    assert call(guard(max_head=200), Host="localhost", Authorization=auth, X_Small="a" * 20) == 200
    assert call(guard(), Host="localhost", Authorization=auth, Content_Length="²") == 400
    assert call(guard(), Host="localhost", Authorization=auth, Content_Length="9" * 5000) == 413


def asgi(guard: Guard, scope: dict[str, Any], incoming: list[dict[str, Any]]) -> tuple[list[Any], list[Any]]:
    """Run ``guard`` on ``scope``: (the messages it sent, the scopes its app saw)."""
    sent: list[dict[str, Any]] = []
    reached: list[Any] = []

    async def app(scope: Any, receive: Any, send: Any) -> None:
        reached.append(scope)

    async def receive() -> dict[str, Any]:
        return incoming.pop(0)

    async def send(message: dict[str, Any]) -> None:
        sent.append(message)

    guard.app = app
    asyncio.run(guard(scope, receive, send))
    return sent, reached


def test_a_websocket_is_refused_before_it_is_accepted_even_with_the_token() -> None:
    headers = [(b"host", b"localhost"), (b"authorization", b"Bearer t0k3n")]
    scope = {"type": "websocket", "path": "/v1/runs", "scheme": "ws", "headers": headers}
    sent, reached = asgi(guard(), scope, [{"type": "websocket.connect"}])
    assert reached == []
    assert sent == [{"type": "websocket.close", "code": 1008}]


def test_lifespan_reaches_the_app_and_unknown_scope_types_raise() -> None:
    sent, reached = asgi(guard(), {"type": "lifespan"}, [])
    assert [s["type"] for s in reached] == ["lifespan"] and sent == []
    with pytest.raises(ValueError, match="webtransport"):
        asgi(guard(), {"type": "webtransport", "headers": []}, [])


def test_a_configured_origin_gets_its_preflight_answered_and_its_responses_labelled() -> None:
    app_origin = "https://app.example"
    configured = guard(origins=[app_origin])
    preflight = {"type": "http", "method": "OPTIONS", "path": "/v1/runs", "scheme": "http"}
    asks = [(b"host", b"localhost"), (b"access-control-request-method", b"POST")]
    sent, reached = asgi(configured, {**preflight, "headers": [*asks, (b"origin", app_origin.encode())]}, [])
    assert reached == [] and sent[0]["status"] == 204
    assert (b"access-control-allow-origin", app_origin.encode()) in sent[0]["headers"]
    sent, reached = asgi(configured, {**preflight, "headers": [*asks, (b"origin", b"https://evil.example")]}, [])
    assert reached == [] and sent[0]["status"] == 403
    assert not any(name.startswith(b"access-control-") for name, _ in sent[0]["headers"])
    assert call(configured, Host="localhost", Origin=app_origin) == 401  # the token is still needed
