"""Fallback models on the Temporal engine: the model request is an activity; the move is the workflow's.

The model activity's failure carries why the model could not answer (``ProviderError.unavailable``),
so ``RunAgent`` in the workflow moves to the fallback as on the local engine: the run ends
``end_turn`` on the fallback with a ``model_fallback`` event in the run log.
"""

from __future__ import annotations

from tests.e2e.conftest import Cli
from tests.integration.temporal.conftest import run_falling_back
from tests.support.script import Fail, Turn


def test_an_overloaded_model_falls_back_inside_the_workflow(tcli: Cli) -> None:
    result, primary, spare = run_falling_back(
        tcli, (Fail(529, "Overloaded"),), (Turn(text="Answered by the spare.", usage=(10, 2)),), "say hello"
    )

    assert result.code == 0, result.stderr
    events = result.events()
    [moved] = [e for e in events if e["type"] == "model_fallback"]
    assert (moved["from"], moved["to"], moved["reason"]) == ("main:big", "spare:small", "overloaded")
    assert (events[-1]["stop_reason"], events[-1]["output"]) == ("end_turn", "Answered by the spare.")
    assert len(primary.requests) == 1 and [b["model"] for b in spare.bodies()] == ["small"]
    shown = tcli("logs", "show", events[0]["run_id"], "--json")
    assert '"type":"model_fallback"' in shown.stdout.replace(" ", "")
