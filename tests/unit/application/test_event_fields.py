"""What renderers need is a field of the event: a call's outcome, a stop's limits and waiting calls."""

from __future__ import annotations

from typing import Any

from quorum.domain.events import StopDetail
from quorum.domain.responses import Usage
from quorum.domain.tools import RiskLevel, ToolParameter, ToolResult
from tests.fakes import calls, text, wait_forever
from tests.unit.application.conftest import Harness
from tests.unit.application.test_deferral import DeferringReviewer


async def echo(args: dict[str, Any]) -> str:
    return f"echo {args}"


async def test_each_result_says_how_its_call_ended(h: Harness) -> None:
    async def fail(_: dict[str, Any]) -> ToolResult:
        return ToolResult(output="no such file", is_error=True)

    h.tools.add("read", echo, params=[ToolParameter(name="path", param_type="path")])
    h.tools.add("fail", fail)
    h.tools.add("hang", wait_forever)
    h.tools.add("rm", echo, risk=RiskLevel.HIGH)
    h.reviewer.verdicts["c6"] = False
    script = calls(
        ("read", {"path": "a"}), ("read", {"path": 3}), ("nosuch", {}), ("fail", {}), ("hang", {}), ("rm", {})
    )
    h.session.script = [script, text("done")]
    await h.run(tool_timeout_seconds=0.05)
    outcome = {event.call_id: event.outcome for event in h.observer.of("tool_result")}
    assert outcome == {
        "c1": "ok",
        "c2": "invalid_arguments",
        "c3": "invalid_arguments",
        "c4": "error",
        "c5": "timed_out",
        "c6": "rejected",
    }
    flags = {e.call_id: (e.is_error, e.is_rejected) for e in h.observer.of("tool_result")}
    assert flags["c1"] == (False, False) and flags["c6"] == (True, True)
    assert all(flags[c] == (True, False) for c in ("c2", "c3", "c4", "c5"))


def finished(h: Harness) -> Any:
    (event,) = h.observer.of("run_finished")
    return event


async def test_a_stop_at_a_limit_carries_the_limit(h: Harness) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", {}))] * 3
    await h.run(max_tool_turns=1)
    assert (finished(h).stop_reason, finished(h).stop) == ("max_turns", StopDetail(limit=1))
    assert finished(h).model_dump(mode="json")["stop"] == {"limit": 1, "used": None, "waiting_calls": [], "hook": None}


async def test_a_stop_at_the_token_budget_carries_the_budget_and_the_tokens_used(h: Harness) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", {}), usage=Usage(input_tokens=80, output_tokens=30)), text("unused")]
    await h.run(max_total_tokens=100)
    assert finished(h).stop == StopDetail(limit=100, used=110)


async def test_rejections_in_a_row_and_a_timeout_carry_their_limits(h: Harness) -> None:
    h.tools.add("rm", echo, risk=RiskLevel.HIGH)
    h.reviewer.verdicts.update({"c1": False, "c2": False})
    h.session.script = [calls(("rm", {}), ("rm", {})), text("unused")]
    await h.run(max_rejections=2)
    assert (finished(h).stop_reason, finished(h).stop) == ("rejected", StopDetail(limit=2))

    h.observer.events.clear()
    h.tools.add("hang", wait_forever)
    h.session.script = [calls(("hang", {}))]
    await h.run(timeout_seconds=0.05, tool_timeout_seconds=100)
    assert (finished(h).stop_reason, finished(h).stop) == ("timeout", StopDetail(limit=0.05))


async def test_a_run_waiting_for_a_person_names_the_waiting_calls(h: Harness) -> None:
    h.reviewer = DeferringReviewer(tools=h.tools, defer={"c1", "c3"})
    h.tools.add("write", echo, risk=RiskLevel.HIGH)
    h.tools.add("read", echo)
    h.session.script = [calls(("write", {}), ("read", {}), ("write", {"x": 1})), text("unused")]
    await h.run()
    assert finished(h).stop == StopDetail(waiting_calls=["c1", "c3"])


async def test_an_end_of_turn_has_no_stop_detail(h: Harness) -> None:
    h.session.script = [text("done")]
    await h.run()
    assert finished(h).stop is None
