"""A deferred call runs exactly where it was shown: in the workspace its run was recorded in.

The attack: two projects share one run log (the user's default). A run deferred in project B is
approved through the API of a server started for project A. Before decision 190 the server
continued it in its own workspace, so the approval of B's write overwrote A's file while the
approval card showed B. Now the server refuses with 409 and says where the run can be decided;
``quorum approve`` there runs the write in B.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server

pytest.importorskip("starlette")

SCRIPT = {
    "conversation": "continue",
    "turns": [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}, "id": "r1"}]},  # read, then write
        {
            "text": "writing",
            "tool_calls": [{"name": "write_file", "arguments": {"path": "notes.txt", "content": "B's\n"}, "id": "w1"}],
        },
        {"text": "all done"},
    ],
}


def deferred_in(cli: Cli, project: Path) -> str:
    """A run of the scripted write, deferred in ``project`` (recorded in the shared run log)."""
    script = cli.write("s.json", json.dumps(SCRIPT))
    result = cli("run", "--defer", "--workspace", str(project), "--model", f"scripted:{script}", "--json", "write")
    assert result.code == 4, result.stderr
    run_id: str = result.events()[0]["run_id"]
    return run_id


def test_a_server_refuses_a_run_recorded_in_another_workspace_and_approve_runs_it_there(
    cli: Cli, tmp_path: Path
) -> None:
    project_b = tmp_path / "b"
    project_b.mkdir()
    (project_b / "notes.txt").write_text("B before\n")
    (cli.workspace / "notes.txt").write_text("A's own\n")
    run_id = deferred_in(cli, project_b)

    server = Server(cli)  # serves the cli's workspace: project A
    try:
        answer = server.decide(run_id, "w1", approve=True)
        assert answer.status_code == 409, answer.text
        error = answer.json()["error"]
        assert error["code"] == "conflict"
        assert str(project_b.resolve()) in error["message"] and f"quorum approve {run_id}" in error["message"]
        pending = server.http.get(f"/v1/runs/{run_id}/pending").json()["items"]
        assert [p["call_id"] for p in pending] == ["w1"]  # nothing was decided
    finally:
        server.kill()
    assert (cli.workspace / "notes.txt").read_text() == "A's own\n"
    assert (project_b / "notes.txt").read_text() == "B before\n"

    approved = cli("approve", run_id, "--json")
    assert approved.code == 0, approved.stderr
    assert (project_b / "notes.txt").read_text() == "B's\n"
    assert (cli.workspace / "notes.txt").read_text() == "A's own\n"
