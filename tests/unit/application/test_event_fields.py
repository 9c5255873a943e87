"""What renderers need is a field of the event: a call's outcome, a stop's limits and waiting calls."""

from __future__ import annotations

from typing import Any

from quorum.domain.tools import RiskLevel, ToolParameter, ToolResult
from tests.fakes import calls, text, wait_forever
from tests.unit.application.conftest import Harness


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
