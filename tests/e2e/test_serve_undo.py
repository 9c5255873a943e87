"""``POST /v1/runs/{id}/undo`` over real HTTP: a run's files restored on disk, conflicts and strangers refused."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server

pytest.importorskip("starlette")

TURNS = [
    {"tool_calls": [{"name": "read_file", "arguments": {"path": "a.txt"}, "id": "c0"}]},  # read before write
    {"tool_calls": [{"name": "write_file", "arguments": {"path": "a.txt", "content": "changed\n"}, "id": "c1"}]},
    {"tool_calls": [{"name": "write_file", "arguments": {"path": "new.txt", "content": "new\n"}, "id": "c2"}]},
    {"text": "done"},
]


def ran(cli: Cli) -> str:
    """A finished run (``quorum run --yes``) that modified ``a.txt`` and created ``new.txt``."""
    cli.write("a.txt", "before\n")
    cli.write("s.json", json.dumps({"conversation": "continue", "turns": TURNS}))
    result = cli("run", "--yes", "--json", "--model", "scripted:s.json", "change things")
    assert result.code == 0, result.stderr
    assert (cli.workspace / "a.txt").read_text() == "changed\n"
    run_id: str = result.events()[0]["run_id"]
    return run_id


@pytest.fixture
def server(cli: Cli) -> Iterator[Server]:
    running = Server(cli)
    yield running
    if running.proc.poll() is None:
        running.kill()


def test_undo_restores_the_run_files_and_a_dry_run_changes_nothing(cli: Cli) -> None:
    run_id = ran(cli)
    server = Server(cli)
    try:
        dry = server.http.post(f"/v1/runs/{run_id}/undo", json={"dry_run": True})
        assert dry.status_code == 200, dry.text
        steps = {s["path"]: s["action"] for s in dry.json()["plan"]["steps"]}
        assert steps == {"a.txt": "restore", "new.txt": "remove"}
        assert dry.json()["applied"] is False
        assert (cli.workspace / "a.txt").read_text() == "changed\n"  # a dry run changes nothing

        done = server.http.post(f"/v1/runs/{run_id}/undo")  # no body: the defaults
        assert done.status_code == 200, done.text
        assert done.json()["applied"] is True and done.json()["undo_run_id"]
        assert (cli.workspace / "a.txt").read_text() == "before\n"
        assert not (cli.workspace / "new.txt").exists()
    finally:
        server.kill()


def test_a_file_changed_since_the_run_is_named_in_a_409_and_force_restores(cli: Cli) -> None:
    run_id = ran(cli)
    cli.write("a.txt", "edited by hand\n")
    server = Server(cli)
    try:
        refused = server.http.post(f"/v1/runs/{run_id}/undo", json={})
        assert refused.status_code == 409, refused.text
        assert refused.json()["error"]["files"] == ["a.txt"]
        assert (cli.workspace / "a.txt").read_text() == "edited by hand\n"  # nothing changed
        assert (cli.workspace / "new.txt").exists()

        forced = server.http.post(f"/v1/runs/{run_id}/undo", json={"force": True})
        assert forced.status_code == 200, forced.text
        assert (cli.workspace / "a.txt").read_text() == "before\n"
    finally:
        server.kill()


def test_unknown_run_unauthenticated_and_bad_body_change_nothing(cli: Cli) -> None:
    run_id = ran(cli)
    server = Server(cli)
    try:
        assert server.http.post("/v1/runs/no-such-run/undo", json={}).status_code == 404
        stranger = server.client(None)
        assert stranger.post(f"/v1/runs/{run_id}/undo", json={}).status_code == 401
        wrong = server.client("not-the-token")
        assert wrong.post(f"/v1/runs/{run_id}/undo", json={}).status_code == 401
        assert server.http.post(f"/v1/runs/{run_id}/undo", json={"dry_run": "yes", "x": 1}).status_code == 422
        assert (cli.workspace / "a.txt").read_text() == "changed\n"
        assert (cli.workspace / "new.txt").exists()
    finally:
        server.kill()


def test_a_run_of_another_workspace_is_refused_with_409(cli: Cli, tmp_path: Path) -> None:
    run_id = ran(cli)
    other = tmp_path / "other"
    other.mkdir()
    server = Server(cli, "--workspace", str(other))
    try:
        answer = server.http.post(f"/v1/runs/{run_id}/undo", json={})
        assert answer.status_code == 409, answer.text
        assert "quorum undo" in answer.json()["error"]["message"]
        assert (cli.workspace / "a.txt").read_text() == "changed\n"  # its recorded workspace untouched
        assert (cli.workspace / "new.txt").exists()
    finally:
        server.kill()
