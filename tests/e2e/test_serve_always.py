"""``"always": true`` on a decision: the terminal's "always", scoped the same way, over HTTP."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server, write_script

pytest.importorskip("starlette")

COMPOUND = [
    {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch x && rm -rf y"}, "id": "c1"}]},
    {"text": "ok"},
]


@pytest.fixture
def server(cli: Cli) -> Iterator[Server]:
    running = Server(cli)
    yield running
    if running.proc.poll() is None:
        running.kill()


def test_always_is_offered_with_its_scope_and_refused_where_the_terminal_refuses_it(cli: Cli, server: Server) -> None:
    write = [{"tool_calls": [{"name": "write_file", "arguments": {"path": "d/a.txt", "content": "a"}, "id": "w1"}]}]
    run_id = server.start("write", write_script(cli, [*write, {"text": "ok"}], "w.json"))
    server.until_waiting(run_id)
    [pending] = server.http.get(f"/v1/runs/{run_id}/pending").json()["items"]
    assert pending["always"].startswith("write_file in ")  # the scope the terminal states
    body = {"call_id": "w1", "approve": False, "reason": "no", "always": True}
    assert server.http.post(f"/v1/runs/{run_id}/decisions", json=body).status_code == 422
    assert not (cli.workspace / "d" / "a.txt").exists()

    compound = server.start("run", write_script(cli, COMPOUND, "c.json"))
    server.until_waiting(compound)
    [pending] = server.http.get(f"/v1/runs/{compound}/pending").json()["items"]
    assert pending["always"] is None  # a compound command has no honest scope
    body = {"call_id": "c1", "approve": True, "always": True}
    answer = server.http.post(f"/v1/runs/{compound}/decisions", json=body)
    assert answer.status_code == 422 and "not offered" in answer.json()["error"]["message"]
    assert len(server.http.get(f"/v1/runs/{compound}/pending").json()["items"]) == 1  # still waiting
