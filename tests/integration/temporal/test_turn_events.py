"""The model request carries the turn's tool results to the run log (decision 274): none is lost.

A tool's result is written by the model request that sends it back, before it asks the model; a
request that fails for good (here the model is overloaded and the run moves to its fallback) has
written it all the same, and the log holds every event of the run, in order, as the run reported
them.
"""

from __future__ import annotations

import json

from tests.e2e.conftest import Cli
from tests.integration.temporal.conftest import run_falling_back
from tests.support.script import Call, Fail, Turn


def test_a_result_whose_model_request_failed_is_still_in_the_log(tcli: Cli) -> None:
    tcli.write("notes.txt", "the notes\n")
    primary_script = (Turn(calls=(Call("toolu_1", "read_file", {"path": "notes.txt"}),)), Fail(529, "Overloaded"))
    result, _, _ = run_falling_back(tcli, primary_script, (Turn(text="Read them.", usage=(10, 2)),), "read the notes")

    assert result.code == 0, result.stderr
    events = result.events()
    assert (events[-1]["stop_reason"], events[-1]["output"]) == ("end_turn", "Read them.")
    shown = tcli("logs", "show", events[0]["run_id"], "--json")
    assert shown.code == 0, shown.stderr
    logged = [json.loads(line) for line in shown.stdout.splitlines()[1:]]
    types = [e["type"] for e in logged]
    assert types == [e["type"] for e in events]  # every event, in the order the run reported them
    [read] = [e for e in logged if e["type"] == "tool_result"]
    assert read["call_id"] == "toolu_1" and "the notes" in read["output"] and not read["is_error"]
    assert types.index("tool_result") < types.index("model_fallback")
