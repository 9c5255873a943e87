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
