"""The fault harness itself: a plain run passes its invariants; a process left behind fails them."""

from __future__ import annotations

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.faults.harness import run_fault, scripted


def test_a_clean_run_keeps_every_invariant(cli: Cli) -> None:
    model = scripted(cli, [{"tool_calls": [{"name": "list_dir", "arguments": {}}]}, {"text": "ok"}])
    result = run_fault(cli, "run", "--json", "--model", model, "go", expect_code=0, timeout=30)
    assert result.events()[-1]["stop_reason"] == "end_turn"


def test_a_process_left_running_in_the_workspace_fails_the_case(cli: Cli) -> None:
    # The escaped process writes its pid once it is in its own session; the command waits for that,
    # so the process group kill at the command's end cannot catch it before it escapes.
    command = (
        "setsid sh -c 'echo $$ > escaped.pid; exec sleep 300' >/dev/null 2>&1 & until [ -s escaped.pid ]; do :; done"
    )
    model = scripted(cli, [{"tool_calls": [{"name": "run_command", "arguments": {"command": command}}]}, {"text": "x"}])
    with pytest.raises(AssertionError, match="processes left running"):
        run_fault(cli, "run", "--json", "--yes", "--model", model, "go", expect_code=0, timeout=30)
