"""The loop guard and the cost cap (issue 23), with a scripted session and fake tools."""

from __future__ import annotations

from typing import Any

from quorum.application import model_wording as say
from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.responses import Usage
from quorum.domain.tools import RiskLevel
from tests.fakes import FakeGateway, calls, text
from tests.unit.application.conftest import Harness


async def read(args: dict[str, Any]) -> str:
    return f"contents of {args['path']}"


async def test_the_fourth_identical_call_in_a_row_is_not_executed(h: Harness) -> None:
    h.tools.add("read", read)
    same = ("read", {"path": "a.txt"})
    h.session.script = [calls(same), calls(same), calls(same), calls(same), text("the answer")]
    result = await h.run()
    assert result.stop_reason == "end_turn"
    assert h.tools.executed == ["c1", "c1_2", "c1_3"]  # the model reuses c1; the run records each call apart
    [refused] = h.results_sent(3)
    assert refused.is_error and refused.output == say.repeated_call("read", 3)
    assert "already have" in refused.output


async def test_other_arguments_or_a_call_in_between_reset_the_guard(h: Harness) -> None:
    h.tools.add("read", read)
    a, b = ("read", {"path": "a.txt"}), ("read", {"path": "b.txt"})
    h.session.script = [calls(a), calls(a), calls(b), calls(a), calls(b), text("done")]
    await h.run(max_tool_turns=10)
    assert len(h.tools.executed) == 5  # a ran 3 times, b twice: no call repeats 3 runs to the same result


async def test_an_alternating_cycle_is_caught_then_stopped_as_loop_detected(h: Harness) -> None:
    h.tools.add("read", read)
    h.tools.add("edit", read)
    a, b = ("read", {"path": "a.txt"}), ("edit", {"path": "a.txt"})
    h.session.script = [calls(a), calls(b), calls(a), calls(b), calls(a), calls(b), calls(a), calls(b), calls(a)]
    result = await h.run(max_tool_turns=20)
    assert len(h.tools.executed) == 6  # each ran 3 times to the same result
    first, second = h.results_sent(6)[0], h.results_sent(7)[0]
    assert first.is_error and first.output == say.cycled_call("read", 3, 1)
    assert "going round in a circle" in first.output and "Do not repeat it" in first.output
    assert second.output == say.cycled_call("edit", 3, 0)
    assert result.stop_reason == "loop_detected"
    assert result.detail == say.loop_detected(2)


async def test_a_model_that_heeds_the_warning_goes_on(h: Harness) -> None:
    h.tools.add("read", read)
    h.tools.add("edit", read)
    a, b, c = ("read", {"path": "a.txt"}), ("edit", {"path": "a.txt"}), ("read", {"path": "b.txt"})
    h.session.script = [calls(a), calls(b), calls(a), calls(b), calls(a), calls(b), calls(a), calls(c), text("done")]
    result = await h.run(max_tool_turns=20)
    assert result.stop_reason == "end_turn" and result.output == "done"
    assert len(h.tools.executed) == 7


async def test_a_call_whose_result_changes_is_progress_not_a_cycle(h: Harness) -> None:
    count = 0

    async def changing(args: dict[str, Any]) -> str:
        nonlocal count
        count += 1
        return f"version {count}"

    h.tools.add("read", changing)
    same = ("read", {"path": "a.txt"})
    other = ("read", {"path": "b.txt"})
    h.session.script = [calls(same), calls(other), calls(same), calls(other), calls(same), calls(other), calls(same)]
    h.session.script.append(text("done"))
    result = await h.run(max_tool_turns=20)
    assert result.stop_reason == "end_turn" and count == 7


async def test_max_repeated_calls_sets_how_many_repeats_are_allowed(h: Harness) -> None:
    h.tools.add("read", read)
    same = ("read", {"path": "a.txt"})
    h.session.script = [calls(same), calls(same), calls(same), text("done")]
    await h.run(max_repeated_calls=1)
    assert len(h.tools.executed) == 1
    assert h.results_sent(2)[0].output == say.repeated_call("read", 1)


async def test_identical_calls_in_one_response_all_run(h: Harness) -> None:
    h.tools.add("read", read)
    h.session.script = [calls(*[("read", {"path": "a"})] * 5), text("done")]
    await h.run()
    assert len(h.tools.executed) == 5


class FlatPrices:
    """One dollar per thousand tokens, for any model but ``unknown:*``."""

    def cost(self, model_id: str, usage: Usage) -> float | None:
        return None if model_id.startswith("unknown:") else usage.total_tokens / 1000


def priced(h: Harness) -> RunAgent:
    return RunAgent(
        gateway=FakeGateway(h.session),
        executor=h.tools,
        schema=h.agent()._schema,
        reviewer=h.reviewer,
        observer=h.observer,
        prices=FlatPrices(),
    )


async def test_the_cost_cap_stops_the_run_with_max_cost(h: Harness) -> None:
    h.tools.add("read", read)
    spend = Usage(input_tokens=400, output_tokens=100)  # $0.50 a response
    h.session.script = [calls(("read", {"path": "a"}), usage=spend), calls(("read", {"path": "b"}), usage=spend)]
    params = ExecutionParams(max_cost_usd=0.75)
    result = await priced(h).execute(RunRequest(task="t", model_id="fake:m", params=params))
    assert result.stop_reason == "max_cost"
    assert result.detail == say.cost_cap_reached(0.75, 1.0)
    assert h.tools.executed == ["c1"]  # the second response's call is answered, not run
    last = h.session.history()[-1]
    assert last.role == "user"  # the history stays valid: the open call got its result


async def test_reviewer_spending_counts_towards_the_cap(h: Harness) -> None:
    h.tools.add("write", read, risk=RiskLevel.HIGH)
    h.reviewer.vote_model, h.reviewer.vote_usage = "fake:reviewer", Usage(input_tokens=900)
    h.session.script = [calls(("write", {"path": "a"}), usage=Usage(input_tokens=50)), text("never")]
    params = ExecutionParams(max_cost_usd=0.5)
    result = await priced(h).execute(RunRequest(task="t", model_id="fake:m", params=params))
    assert result.stop_reason == "max_cost"


async def test_unpriced_models_are_not_capped_silently_but_not_stopped_either(h: Harness) -> None:
    h.session.script = [text("ok", usage=Usage(input_tokens=10_000))]
    params = ExecutionParams(max_cost_usd=0.01)
    result = await priced(h).execute(RunRequest(task="t", model_id="unknown:m", params=params))
    assert result.stop_reason == "end_turn" and result.cost is None
