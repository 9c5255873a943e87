"""``quorum serve`` expands a prompt command when a run starts with ``/NAME`` (the web page's message box posts so)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.serve_client import Server, write_script

pytest.importorskip("starlette")


@pytest.fixture
def server(cli: Cli) -> Iterator[Server]:
    cli.write(".quorum/commands/fix-todo.md", "---\ndescription: Fix TODOs\n---\nFix every TODO in $ARGUMENTS.\n")
    running = Server(cli)
    yield running
    if running.proc.poll() is None:
        running.kill()


def test_a_run_starting_with_a_command_runs_its_body_and_an_unknown_one_is_a_400(cli: Cli, server: Server) -> None:
    model = write_script(cli, [{"text": "fixed"}])
    run_id = server.start("/fix-todo app.py", model)
    events = list(server.events(run_id))
    assert events[0].data["task"] == "Fix every TODO in app.py." and events[-1].data["output"] == "fixed"
    unknown = server.http.post("/v1/runs", json={"task": "/nope x", "model": model})
    assert unknown.status_code == 400 and "unknown command /nope" in unknown.text
    assert [run["run_id"] for run in server.runs()] == [run_id]  # nothing was recorded for it
