"""``quorum run --continue`` / ``--resume``: the conversation goes on, even on another provider."""

from __future__ import annotations

import json

from tests.e2e.conftest import Cli


def test_continue_and_resume(cli: Cli) -> None:
    cli.write("a.txt", "alpha\n")
    first = cli("run", "--model", "test", "--json", "read a.txt")
    assert first.code == 0, first.stderr
    first_id = first.events()[0]["run_id"]

    cli.write("more.json", json.dumps({"turns": [{"text": "continuing"}]}))
    second = cli("run", "--continue", "--model", "scripted:more.json", "--json", "go on")
    assert second.code == 0, second.stderr
    assert second.events()[-1]["output"] == "continuing"

    header = json.loads(cli("logs", "show", "last", "--json").stdout.splitlines()[0])
    assert header["parent_run_id"] == first_id  # the new run records what it continued

    third = cli("run", "--resume", first_id, "--json", "once more")  # model defaults to the run's own
    assert third.code == 0, third.stderr
    assert third.events()[0]["model"] == "test"


def test_resume_unknown_run_is_a_usage_error(cli: Cli) -> None:
    result = cli("run", "--resume", "nope", "--model", "test", "x")
    assert result.code == 2 and "there is no run 'nope'" in result.stderr


def test_continue_with_no_log_is_refused(cli: Cli) -> None:
    result = cli("run", "--continue", "--no-log", "--model", "test", "x")
    assert result.code == 2 and "--no-log" in result.stderr
