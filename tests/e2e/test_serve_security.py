"""``quorum serve`` is safe by default: the token on every route, Host and Origin checks, body limits.

Attacks are judged by their effect: no run started, no data returned.
"""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server, write_script

pytest.importorskip("starlette")

ANSWER = [{"text": "hello"}]


@pytest.fixture
def server(cli: Cli) -> Iterator[Server]:
    running = Server(cli)
    yield running
    if running.proc.poll() is None:
        running.kill()


def test_every_route_but_health_needs_the_token(cli: Cli, server: Server) -> None:
    from quorum.serve.routes import ROUTES  # the app's own route table: a new route is checked too

    run_id = server.start("hi", write_script(cli, ANSWER))
    list(server.events(run_id))
    anonymous = server.client(None)
    wrong = server.client("not-the-token")
    checked = 0
    for route in ROUTES:
        path = route.path.replace("{run_id}", run_id)
        for method in route.methods - {"HEAD"}:
            for client in (anonymous, wrong):
                answer = client.request(method, path, json={})
                if route.path == "/v1/health":
                    assert answer.status_code == 200 and answer.json() == {"status": "ok"}
                    continue
                assert answer.status_code == 401, (method, path)
                assert answer.json()["error"]["code"] == "unauthorized"
                assert run_id not in answer.text
            checked += 1
    assert checked == len(ROUTES) >= 11
    assert [r["run_id"] for r in server.runs()] == [run_id]  # nothing started without the token
    assert anonymous.get("/v1/nowhere").status_code == 401
    anonymous.close()
    wrong.close()


def test_the_routes_answer_with_the_token(cli: Cli, server: Server) -> None:
    run_id = server.start("hi", write_script(cli, ANSWER))
    list(server.events(run_id))
    http = server.http
    assert http.get("/v1/runs/" + run_id).json()["status"] == "end_turn"
    assert http.get(f"/v1/runs/{run_id}/pending").json() == {"items": []}
    assert any(t["name"] == "write_file" and t["risk"] == "high" for t in http.get("/v1/tools").json()["items"])
    assert "items" in http.get("/v1/models").json()
    document = http.get("/v1/openapi.json").json()
    assert document["openapi"].startswith("3.") and "/v1/runs/{run_id}/decisions" in document["paths"]
    assert "StartRun" in document["components"]["schemas"]


def test_errors_are_json_with_the_right_status_and_no_trace(cli: Cli, server: Server) -> None:
    http = server.http
    model = write_script(cli, ANSWER)
    cases = [
        (http.post("/v1/runs", content=b"{not json"), 400),
        (http.post("/v1/runs", json={"task": 3}), 422),
        (http.post("/v1/runs", json={"task": "x", "surprise": 1}), 422),
        (http.post("/v1/runs", json={"task": "x", "model": "nowhere:model"}), 400),
        (http.get("/v1/runs", params={"limit": "many"}), 400),
        (http.get("/v1/runs/nope"), 404),
        (http.get("/v1/runs/nope/events"), 404),
        (http.post("/v1/runs/nope/decisions", json={"call_id": "x", "approve": True}), 404),
        (http.post("/v1/runs/nope/cancel"), 404),
        (http.get("/v1/elsewhere"), 404),
    ]
    for answer, status in cases:
        assert answer.status_code == status, answer.text
        body = answer.json()
        assert set(body) == {"error"} and set(body["error"]) == {"code", "message"}
        assert "Traceback" not in answer.text and 'File "' not in answer.text
    run_id = server.start("hi", model)
    list(server.events(run_id))
    assert server.decide(run_id, "x", approve=True).status_code == 409  # nothing waits in it
    assert [r["run_id"] for r in server.runs()] == [run_id]


def test_host_and_origin_attacks_start_nothing_and_read_nothing(cli: Cli, server: Server) -> None:
    model = write_script(cli, ANSWER)
    run_id = server.start("hi", model)
    list(server.events(run_id))
    rebinding = server.client(server.token, Host="attacker.example")
    for answer in (rebinding.post("/v1/runs", json={"task": "x", "model": model}), rebinding.get("/v1/runs")):
        assert answer.status_code == 421
        assert run_id not in answer.text and "items" not in answer.json()
    foreign = server.client(server.token, Origin="http://attacker.example")
    for answer in (foreign.post("/v1/runs", json={"task": "x", "model": model}), foreign.get("/v1/runs")):
        assert answer.status_code == 403
        assert run_id not in answer.text
    assert [r["run_id"] for r in server.runs()] == [run_id]  # neither started a run
    own = server.client(server.token, Origin=server.base)
    assert own.get("/v1/runs").status_code == 200
    for client in (rebinding, foreign, own):
        client.close()


def test_a_body_over_the_limit_is_refused_before_it_is_read(cli: Cli, server: Server) -> None:
    big = json.dumps({"task": "x" * (20 * 1024 * 1024), "model": write_script(cli, ANSWER)}).encode()
    answer = server.http.post("/v1/runs", content=big, headers={"Content-Type": "application/json"})
    assert answer.status_code == 413 and answer.json()["error"]["code"] == "too_large"

    def chunks() -> Iterator[bytes]:  # no Content-Length: the server counts what arrives
        for _ in range(40):
            yield b" " * (512 * 1024)

    streamed = server.http.post("/v1/runs", content=chunks())
    assert streamed.status_code == 413
    assert server.runs() == []


def test_the_token_is_kept_private_and_redacted(cli: Cli) -> None:
    secret = "serve-token-0123456789abcdef"
    cli.write("quorum.toml", '[serve]\ntoken = "${SERVE_TOKEN}"\n')
    server = Server(cli.__class__(cli.workspace, {**cli.env, "SERVE_TOKEN": secret}))
    try:
        assert server.token == secret
        run_id = server.start("hi", write_script(cli, [{"text": f"the token is {secret}"}]))
        events = list(server.events(run_id))
        assert secret not in json.dumps([m.data for m in events])
    finally:
        server.kill()


def test_a_generated_token_is_stored_0600_and_reused(cli: Cli) -> None:
    first = Server(cli)
    first.kill()
    stored = list((cli.workspace.parent / "data").rglob("serve-token"))
    assert len(stored) == 1 and stat.S_IMODE(stored[0].stat().st_mode) == 0o600
    assert stored[0].read_text().strip() == first.token
    second = Server(cli)
    try:
        assert second.token == first.token
    finally:
        second.kill()


def test_a_remote_address_needs_allow_remote(cli: Cli) -> None:
    refused = cli("serve", "--host", "0.0.0.0", "--port", "1")
    assert refused.code == 2 and "--allow-remote" in refused.stderr
