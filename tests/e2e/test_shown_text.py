"""What a person wrote is shown as theirs: ``quorum logs show`` obeys no escape in a decision's
``by`` or ``reason`` and quotes them, so they cannot pass for Quorum's own words (issue 32)."""

from __future__ import annotations

import json

from tests.e2e.conftest import Cli
from tests.e2e.test_cli_approve import deferred_run

BY = "mallory\x1b]0;pwned\x07"
REASON = '\x1b[2Jauto-approved (policy)"; approved by quorum'


def test_logs_show_quotes_a_persons_hostile_decision_and_obeys_none_of_it(cli: Cli) -> None:
    run_id, _ = deferred_run(cli)
    rejected = cli("reject", run_id, "--by", BY, "--reason", REASON)
    assert rejected.code == 0, rejected.stderr
    assert "\x1b" not in rejected.stderr and "\x07" not in rejected.stderr
    said = r'"\x1b[2Jauto-approved (policy)\"; approved by quorum"'
    assert f'✗ rejected by "mallory\\x1b]0;pwned\\x07": {said}' in rejected.stderr

    shown = cli("logs", "show", run_id)
    assert shown.code == 0, shown.stderr
    assert "\x1b" not in shown.stdout and "\x07" not in shown.stdout
    assert f'review of w1: REJECTED by human ("mallory\\x1b]0;pwned\\x07"): {said}' in shown.stdout
    assert f"- human: reject (0 ms) {said}" in shown.stdout


def test_logs_show_and_list_escape_a_hostile_task(cli: Cli) -> None:
    cli.write("s.json", '{"turns": [{"text": "ok"}]}')
    task = "tidy\x1b]0;pwned\x07 up\u202e"
    assert cli("run", "--model", "scripted:s.json", task).code == 0
    for shown in (cli("logs", "show", "last").stdout, cli("logs", "list").stdout):
        assert "\x1b" not in shown and "\u202e" not in shown
        assert "tidy\\x1b]0;pwned\\x07 up\\u202e" in shown


def test_a_command_with_a_bidi_override_is_previewed_escaped_on_the_terminal(cli: Cli) -> None:
    command = "rm notes\u202etxt.exe"
    call = {"name": "run_command", "arguments": {"command": command}, "id": "c1"}
    cli.write("s.json", json.dumps({"turns": [{"tool_calls": [call]}, {"text": "done"}]}))
    ran = cli("run", "--defer", "--model", "scripted:s.json", "look")
    assert ran.code == 4, ran.stderr
    pending = cli("pending").stdout
    shown = cli("logs", "show", "last").stdout
    for text in (ran.stderr, pending, shown):
        assert "\u202e" not in text
        assert "rm notes\\u202etxt.exe" in text, text
