"""The CLI over a PostgreSQL run log: ``[storage] backend = "postgres"`` wired through the container.

``quorum run``, ``logs``, ``pending``, ``approve`` and ``batch`` as subprocesses against the server the
session starts; the URL's password never shows in what they print.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.e2e.conftest import Cli, isolated_env
from tests.support.postgres import PostgresServer

SCRIPT = json.dumps(
    {
        "conversation": "continue",
        "turns": [
            {"text": "writing", "tool_calls": [{"name": "write_file", "arguments": {"path": "o.txt", "content": "o"}}]},
            {"text": "all done"},
        ],
    }
)


def postgres_cli(tmp_path: Path, url: str) -> Cli:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    env = isolated_env(tmp_path)
    del env["QUORUM_DB"]
    cli = Cli(workspace, env)
    cli.write("quorum.toml", f'[storage]\nbackend = "postgres"\nurl = "{url}"\n')
    cli.write("s.json", SCRIPT)
    return cli


def test_runs_are_recorded_listed_deferred_and_approved_in_postgres(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    url = postgres_server.new_database().replace(postgres_server.password, "${TEST_PG_PW}")
    cli = postgres_cli(tmp_path, url)
    env = {"TEST_PG_PW": postgres_server.password}
    ran = cli("run", "--defer", "--model", "scripted:s.json", "--json", "write o", **env)
    assert ran.code == 4, ran.stderr
    run_id = ran.events()[0]["run_id"]
    assert not (tmp_path / "runs.db").exists()
    listed = cli("logs", "list", "--json", **env)
    assert [json.loads(line)["run_id"] for line in listed.stdout.splitlines()] == [run_id]
    pending = cli("pending", "--json", **env)
    assert [json.loads(line)["name"] for line in pending.stdout.splitlines()] == ["write_file"]
    approved = cli("approve", run_id, "--by", "carol", "-q", **env)
    assert approved.code == 0, approved.stderr
    assert (cli.workspace / "o.txt").read_text() == "o"
    shown = cli("logs", "show", run_id, "--json", **env)
    assert [e["type"] for e in shown.events()].count("run_started") == 2
    (cli.workspace / "o.txt").unlink()  # a new file again: one that exists is written only once read
    cli.write("t.jsonl", json.dumps({"task": "again", "id": "x", "model": "scripted:s.json"}) + "\n")
    batch = cli("batch", "t.jsonl", "--json", **env)
    assert batch.code == 4 and batch.events()[-1]["waiting"] == 1
    for output in (ran, listed, pending, approved, shown, batch):
        assert postgres_server.password not in output.stdout + output.stderr


def test_a_wrong_password_is_a_configuration_error_that_keeps_it_secret(
    tmp_path: Path, postgres_server: PostgresServer
) -> None:
    url = postgres_server.url().replace(postgres_server.password, "Wr0ng-pass-word")
    cli = postgres_cli(tmp_path, url)
    listed = cli("logs", "list")
    assert listed.code == 2
    assert "cannot connect to the run log" in listed.stderr and "Wr0ng-pass-word" not in listed.stderr
