"""The human renderer decides from event fields, never from the words of an event."""

from __future__ import annotations

import io

from quorum.cli.render.human import HumanRenderer
from quorum.domain.events import RunEvent, ToolCallEvent, ToolResultEvent
from quorum.domain.tools import RiskLevel


def shown(*events: RunEvent) -> list[str]:
    out, err = io.StringIO(), io.StringIO()
    renderer = HumanRenderer(out, err, live=False, markdown=False)
    for event in events:
        renderer.on_event(event)
    renderer.close()
    return err.getvalue().splitlines()


def call(risk: RiskLevel = RiskLevel.HIGH) -> ToolCallEvent:
    return ToolCallEvent(id="c1", name="write_file", arguments={"path": 3}, risk=risk)


def result(output: str, **fields: object) -> ToolResultEvent:
    return ToolResultEvent.model_validate(
        {"call_id": "c1", "name": "write_file", "is_error": True, "is_rejected": False, "output": output}
        | {"duration_ms": 2}
        | fields
    )


def test_an_invalid_call_is_one_line_with_its_problem() -> None:
    refused = result(
        "write_file: path: 3 is not of type 'string'; the call was not executed",
        outcome="invalid_arguments",
        problem="path: 3 is not of type 'string'",
    )
    assert shown(call(), refused) == ["→ write_file {\"path\": 3}  ✗ invalid: path: 3 is not of type 'string'"]


def test_a_call_the_stopping_run_left_unrun_is_said_from_its_fields() -> None:
    unrun = result("any words at all", outcome="not_run", problem="the tool-turn limit (3) was reached")
    assert shown(call(), unrun)[-1] == "← write_file not run: the tool-turn limit (3) was reached"
    worded_alike = result("not executed: the tool-turn limit (3) was reached", outcome="error")
    assert "✗ error" in shown(call(), worded_alike)[-1]  # words that look alike are not read


def test_a_result_carries_its_problem_only_when_there_is_one() -> None:
    assert "problem" not in result("x", is_error=False).model_dump(mode="json")
    assert result("x", outcome="not_run", problem="stop").model_dump(mode="json")["problem"] == "stop"


def test_an_error_of_a_high_risk_call_is_not_read_as_invalid() -> None:
    failed = result("write_file: disk full; the call was not executed", outcome="error")
    assert shown(call(), failed) == [
        '→ write_file {"path": 3}  high risk',
        "← write_file ✗ error (2 ms) write_file: disk full; the call was not executed",
    ]


def test_a_result_recorded_before_outcomes_reads_its_outcome_from_its_flags() -> None:
    assert result("x").outcome == "error"
    assert result("x", is_error=False).outcome == "ok"
    assert result("x", is_rejected=True).outcome == "rejected"
