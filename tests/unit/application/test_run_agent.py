"""The loop rules of RunAgent, one test (or more) per rule, with a scripted session and fake tools."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from quorum.domain.errors import ProviderError
from quorum.domain.responses import RunUsage, StopReason, Usage
from quorum.domain.tools import RiskLevel, ToolCall, ToolParameter, ToolResult
from tests.fakes import calls, text, wait_forever
from tests.unit.application.conftest import Harness


async def echo(args: dict[str, Any]) -> str:
    return f"echo {args}"


def assert_history_valid(h: Harness) -> None:
    """Every tool_use in the session history is answered by a tool_result in the next message."""
    msgs = h.session.history()
    for i, msg in enumerate(msgs):
        uses = [b.native_id for b in msg.content if isinstance(b, ToolCall)]
        if uses:
            assert i + 1 < len(msgs), f"tool_use {uses} has no following message"
            answered = [b.call_id for b in msgs[i + 1].content if isinstance(b, ToolResult)]
            assert answered == uses


# Rule 1 & 2: a turn is one response plus its calls; no calls → end_turn with the text.
async def test_several_calls_in_one_response_count_as_one_turn(h: Harness) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", {}), ("read", {}), ("read", {})), text("done")]
    result = await h.run()
    assert result.turns == 2
    assert result.stop_reason == "end_turn"
    assert result.output == "done"
    assert h.observer.types().count("turn_started") == 2


async def test_response_without_calls_finishes_with_its_text(h: Harness) -> None:
    h.session.script = [text("the answer")]
    result = await h.run()
    assert (result.stop_reason, result.output, result.turns) == ("end_turn", "the answer", 1)
    finished = h.observer.of("run_finished")[0]
    assert finished.output == "the answer" and finished.stop_reason == "end_turn"


# Rule 3: low-risk calls run concurrently, bounded; high-risk after them, one at a time, reviewed.
async def test_low_risk_calls_run_concurrently(h: Harness) -> None:
    barrier = asyncio.Barrier(4)

    async def meet(_: dict[str, Any]) -> str:
        async with asyncio.timeout(5):  # a serial executor would never fill the barrier
            await barrier.wait()
        return "met"

    h.tools.add("meet", meet)
    h.session.script = [calls(*[("meet", {})] * 4), text("ok")]
    result = await h.run()
    assert result.stop_reason == "end_turn"
    assert [r.output for r in h.results_sent(0)] == ["met"] * 4


async def test_parallelism_is_bounded_by_max_parallel_tools(h: Harness) -> None:
    async def yield_a_bit(_: dict[str, Any]) -> str:
        for _ in range(5):
            await asyncio.sleep(0)
        return "ok"

    h.tools.add("t", yield_a_bit)
    h.session.script = [calls(*[("t", {})] * 10), text("ok")]
    await h.run(max_parallel_tools=3)
    assert h.tools.peak == 3


async def test_high_risk_calls_run_after_low_risk_one_at_a_time_in_emission_order(h: Harness) -> None:
    async def slowish(_: dict[str, Any]) -> str:
        for _ in range(3):
            await asyncio.sleep(0)
        return "x"

    h.tools.add("low", slowish)
    h.tools.add("high", slowish, risk=RiskLevel.HIGH)
    h.session.script = [
        calls(("high", {}), ("low", {}), ("high", {}), ("low", {})),
        text("done"),
    ]
    await h.run()
    assert h.tools.executed == ["c2", "c4", "c1", "c3"] or h.tools.executed == ["c4", "c2", "c1", "c3"]
    assert h.reviewer.reviewed == ["c1", "c3"]
    assert h.reviewer.running_at_review == [0, 0]  # nothing runs while a high-risk call is reviewed
    assert h.tools.peak <= 2
    # results go back in emission order with their ids
    assert [r.call_id for r in h.results_sent(0)] == ["c1", "c2", "c3", "c4"]


async def test_high_risk_call_never_overlaps_another_call(h: Harness) -> None:
    overlaps: list[int] = []

    async def high(_: dict[str, Any]) -> str:
        overlaps.append(h.tools.running)
        await asyncio.sleep(0)
        return "h"

    h.tools.add("low", echo)
    h.tools.add("high", high, risk=RiskLevel.HIGH)
    h.session.script = [calls(("low", {}), ("high", {}), ("low", {}), ("high", {})), text("ok")]
    await h.run()
    assert overlaps == [1, 1]  # only itself is running


async def test_per_call_risk_assessment_decides_review(h: Harness) -> None:
    h.tools.add("shell", echo, risk=RiskLevel.HIGH)
    h.tools.risk_overrides["c1"] = RiskLevel.LOW  # e.g. a read-only command
    h.session.script = [calls(("shell", {}), ("shell", {})), text("ok")]
    await h.run()
    assert h.reviewer.reviewed == ["c2"]
    assert h.observer.of("tool_call")[0].risk == "low"
    assert h.observer.of("tool_call")[1].risk == "high"


async def test_reviewer_gets_task_risk_and_assistant_text(h: Harness) -> None:
    h.tools.add("high", echo, risk=RiskLevel.HIGH)
    h.session.script = [calls(("high", {}), say="I will write the file"), text("ok")]
    await h.run(task="write hello")
    ctx = h.reviewer.contexts[0]
    assert (ctx.task, ctx.risk, ctx.assistant_text, ctx.tool.name) == (
        "write hello",
        "high",
        "I will write the file",
        "high",
    )
    assert ctx.run_id == "run-1"


# Rule 4: unknown tool → error naming the available tools; nothing executed.
async def test_unknown_tool_is_an_error_result_listing_available_tools(h: Harness) -> None:
    h.tools.add("read", echo)
    h.tools.add("list", echo)
    h.session.script = [calls(("delete_everything", {})), text("sorry")]
    result = await h.run()
    (res,) = h.results_sent(0)
    assert res.is_error and "unknown tool 'delete_everything'" in res.output
    assert "read" in res.output and "list" in res.output
    assert h.tools.executed == [] and h.reviewer.reviewed == []
    assert result.stop_reason == "end_turn"


async def test_a_withheld_tool_is_refused_with_why_not_as_unknown(h: Harness) -> None:
    h.tools.add("read", echo)
    h.tools.withheld["mcp__s__wipe"] = "it changed since a person trusted it (`quorum mcp trust s wipe`)"
    h.session.script = [calls(("mcp__s__wipe", {})), text("sorry")]
    await h.run()
    (res,) = h.results_sent(0)
    assert res.is_error and "unknown tool" not in res.output
    assert res.output == (
        "tool 'mcp__s__wipe' is not offered in this run: "
        "it changed since a person trusted it (`quorum mcp trust s wipe`)"
    )
    assert h.tools.executed == [] and h.reviewer.reviewed == []


# Rule 5: arguments validated before review and execution.
async def test_schema_violation_is_an_error_result_and_nothing_runs(h: Harness) -> None:
    h.tools.add("write", echo, risk=RiskLevel.HIGH, params=[ToolParameter(name="path", param_type="path")])
    h.session.script = [calls(("write", {"path": 3})), text("ok")]
    await h.run()
    (res,) = h.results_sent(0)
    assert res.is_error and "path" in res.output and "not of type 'string'" in res.output
    assert h.tools.executed == [] and h.reviewer.reviewed == []


async def test_missing_required_argument_is_explained(h: Harness) -> None:
    h.tools.add("read", echo, params=[ToolParameter(name="path", param_type="path")])
    h.session.script = [calls(("read", {})), text("ok")]
    await h.run()
    assert "'path' is a required property" in h.results_sent(0)[0].output


async def test_malformed_argument_json_is_an_error_result(h: Harness) -> None:
    h.tools.add("read", echo)
    bad = ToolCall(native_id="c1", name="read", arguments={}, arguments_error="Expecting value", raw_arguments="{oops")
    h.session.script = [calls(bad), text("ok")]
    await h.run()
    (res,) = h.results_sent(0)
    assert res.is_error and "not a JSON object" in res.output and "{oops" in res.output
    assert h.tools.executed == []


# Rule 6: a raising tool → "TypeName: message", the run goes on.
async def test_raising_tool_becomes_error_result(h: Harness) -> None:
    async def boom(_: dict[str, Any]) -> str:
        raise ValueError("bad input")

    h.tools.add("boom", boom)
    h.tools.add("ok", echo)
    h.session.script = [calls(("boom", {}), ("ok", {})), text("recovered")]
    result = await h.run()
    boom_res, ok_res = h.results_sent(0)
    assert boom_res.is_error and boom_res.output == "ValueError: bad input"
    assert not ok_res.is_error
    assert result.stop_reason == "end_turn" and result.output == "recovered"


async def test_tool_reported_error_keeps_its_text(h: Harness) -> None:
    async def refuse(_: dict[str, Any]) -> ToolResult:
        return ToolResult(output="path escapes the workspace", is_error=True)

    h.tools.add("refuse", refuse)
    h.session.script = [calls(("refuse", {})), text("ok")]
    await h.run()
    assert h.results_sent(0)[0].output == "path escapes the workspace"


# Rule 7: per-tool timeout cancels the call.
async def test_tool_timeout_cancels_the_call(h: Harness) -> None:
    cancelled = asyncio.Event()

    async def hang(args: dict[str, Any]) -> str:
        try:
            return await wait_forever(args)
        except asyncio.CancelledError:
            cancelled.set()
            raise

    h.tools.add("hang", hang)
    h.session.script = [calls(("hang", {})), text("ok")]
    result = await h.run(tool_timeout_seconds=0.01)
    (res,) = h.results_sent(0)
    assert res.is_error and "timed out after 0.01 s" in res.output
    assert cancelled.is_set()
    assert result.stop_reason == "end_turn"


# Rule 8: rejection → is_rejected with reasons; max_rejections consecutive stop the run.
async def test_rejected_call_returns_reasons_and_is_not_executed(h: Harness) -> None:
    h.tools.add("rm", echo, risk=RiskLevel.HIGH)
    h.reviewer.verdicts["c1"] = False
    h.session.script = [calls(("rm", {})), text("ok, I will not")]
    result = await h.run()
    (res,) = h.results_sent(0)
    assert res.is_rejected and res.is_error
    assert "looks dangerous" in res.output and "fake" in res.output
    assert h.tools.executed == []
    review = h.observer.of("review")[0]
    assert review.approved is False and review.votes[0].verdict == "reject"
    assert result.stop_reason == "end_turn"


async def test_consecutive_rejections_stop_the_run(h: Harness) -> None:
    h.tools.add("rm", echo, risk=RiskLevel.HIGH)
    h.reviewer.default = False
    h.session.script = [calls(("rm", {})), calls(("rm", {})), calls(("rm", {})), text("never")]
    result = await h.run(max_rejections=3)
    assert result.stop_reason == "rejected"
    assert result.turns == 3
    assert h.tools.executed == []
    assert_history_valid(h)


async def test_an_approval_resets_the_rejection_count(h: Harness) -> None:
    h.tools.add("rm", echo, risk=RiskLevel.HIGH)
    h.session.script = [
        calls(ToolCall(native_id="a", name="rm"), ToolCall(native_id="b", name="rm")),
        calls(ToolCall(native_id="c", name="rm"), ToolCall(native_id="d", name="rm")),
        text("done"),
    ]
    h.reviewer.verdicts.update(a=False, b=True, c=False, d=False)
    result = await h.run(max_rejections=2)
    assert result.stop_reason == "rejected"
    assert h.tools.executed == ["b"]


async def test_calls_after_the_last_allowed_rejection_are_not_reviewed(h: Harness) -> None:
    h.tools.add("rm", echo, risk=RiskLevel.HIGH)
    h.reviewer.default = False
    h.session.script = [calls(("rm", {}), ("rm", {}), ("rm", {}))]
    result = await h.run(max_rejections=2)
    assert h.reviewer.reviewed == ["c1", "c2"]
    assert result.stop_reason == "rejected"
    third = h.observer.of("tool_result")[2]
    assert "not executed" in third.output
    assert_history_valid(h)


# Rule 9: turn limit.
async def test_turn_limit_summarize_asks_once_without_tools(h: Harness) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", {})), calls(("read", {})), calls(("read", {})), text("best answer")]
    result = await h.run(max_tool_turns=2, on_turn_limit="summarize")
    assert result.stop_reason == "max_turns"
    assert result.output == "best answer"
    assert len(h.tools.executed) == 2
    last = [s for s in h.session.sent if s[0] == "send_tool_results"][-1]
    _results, tools, note = last[1]
    assert tools is None and "final answer" in note
    assert "turn limit" in _results[0].output and _results[0].is_error
    assert_history_valid(h)


async def test_turn_limit_stop_ends_at_once_with_valid_history(h: Harness) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", {})), calls(("read", {}), ("read", {})), text("unused")]
    result = await h.run(max_tool_turns=1, on_turn_limit="stop")
    assert result.stop_reason == "max_turns"
    assert h.session.script == [text("unused")]  # no further request was made
    assert_history_valid(h)


async def test_turn_limit_summary_that_still_calls_tools_keeps_history_valid(h: Harness) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", {})), calls(("read", {})), calls(("read", {}), say="partial")]
    result = await h.run(max_tool_turns=1)
    assert result.stop_reason == "max_turns" and result.output == "partial"
    assert_history_valid(h)


# Rule 10: whole-run timeout, cancellation, max_tokens, token budget.
async def test_run_timeout_cancels_in_flight_tools(h: Harness) -> None:
    started = asyncio.Event()

    async def hang(args: dict[str, Any]) -> str:
        started.set()
        return await wait_forever(args)

    h.tools.add("hang", hang)
    h.tools.add("quick", echo)
    h.session.script = [calls(("quick", {}), ("hang", {}))]
    result = await h.run(timeout_seconds=0.05, tool_timeout_seconds=100)
    assert result.stop_reason == "timeout"
    outputs = {e.call_id: e for e in h.observer.of("tool_result")}
    assert not outputs["c1"].is_error
    assert outputs["c2"].is_error and "timed out" in outputs["c2"].output
    assert h.observer.types()[-1] == "run_finished"
    assert_history_valid(h)


async def test_caller_cancellation_ends_run_cancelled(h: Harness) -> None:
    started = asyncio.Event()

    async def hang(args: dict[str, Any]) -> str:
        started.set()
        return await wait_forever(args)

    h.tools.add("hang", hang)
    h.session.script = [calls(("hang", {}))]
    task = asyncio.create_task(h.run())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    finished = h.observer.of("run_finished")[0]
    assert finished.stop_reason == "cancelled"
    assert h.observer.of("tool_result")[0].output.startswith("cancelled")
    assert_history_valid(h)


async def test_provider_max_tokens_ends_run(h: Harness) -> None:
    h.session.script = [text("truncated answ", stop=StopReason.max_tokens())]
    result = await h.run()
    assert result.stop_reason == "max_tokens" and result.output == "truncated answ"


async def test_token_budget_exceeded_stops_with_reason(h: Harness) -> None:
    h.tools.add("read", echo)
    u = Usage(input_tokens=60, output_tokens=10)
    h.session.script = [calls(("read", {}), usage=u), calls(("read", {}), usage=u), text("x")]
    result = await h.run(max_total_tokens=100)
    assert result.stop_reason == "max_tokens"
    assert "token budget of 100" in (result.detail or "") and "140 used" in (result.detail or "")
    assert len(h.tools.executed) == 1
    assert_history_valid(h)


async def test_provider_failure_ends_run_with_error(h: Harness) -> None:
    async def fail() -> Any:
        raise ProviderError("invalid or missing API key for provider fake", provider="fake", status_code=401)

    h.session.script = [fail]
    result = await h.run()
    assert result.stop_reason == "error"
    assert "invalid or missing API key" in (result.detail or "")
    assert h.observer.of("run_finished")[0].detail == result.detail


# Rule 11: events in order, usage summed.
async def test_events_in_order_and_usage_summed(h: Harness) -> None:
    h.tools.add("read", echo)
    h.tools.add("write", echo, risk=RiskLevel.HIGH)
    h.session.script = [
        calls(("read", {}), ("write", {}), say="Let me look.", usage=Usage(input_tokens=10, output_tokens=5)),
        text("All done.", usage=Usage(input_tokens=20, output_tokens=7)),
    ]
    result = await h.run()
    types = h.observer.types()
    assert types[0] == "run_started" and types[-1] == "run_finished"
    first_turn = types[: types.index("turn_finished") + 1]
    assert first_turn[:2] == ["run_started", "turn_started"]
    assert first_turn.count("tool_call") == 2 and first_turn.count("tool_result") == 2
    assert first_turn.index("review") < first_turn.index("tool_result", first_turn.index("review"))
    texts = "".join(e.text for e in h.observer.of("text"))
    assert texts == "Let me look.All done."
    assert result.usage == RunUsage(input_tokens=30, output_tokens=12)
    assert h.observer.of("run_finished")[0].usage == result.usage


async def test_non_streaming_mode_emits_whole_texts(h: Harness) -> None:
    h.session.script = [text("whole")]
    await h.run(stream=False)
    assert [e.text for e in h.observer.of("text")] == ["whole"]


# ask mode: only low-risk tools offered; no path for a high-risk call.
async def test_low_risk_only_offers_no_high_risk_tools(h: Harness) -> None:
    h.tools.add("read", echo)
    h.tools.add("write", echo, risk=RiskLevel.HIGH)
    h.session.script = [calls(("write", {})), text("ok")]
    await h.run(tools="low_risk_only")
    offered = [t["name"] for t in h.session.sent[0][1][1]]
    assert offered == ["read"]
    assert h.tools.executed == [] and "unknown tool 'write'" in h.results_sent(0)[0].output


async def test_low_risk_only_never_runs_a_call_assessed_high(h: Harness) -> None:
    h.tools.add("shell", echo)
    h.tools.risk_overrides["c1"] = RiskLevel.HIGH
    h.session.script = [calls(("shell", {})), text("ok")]
    await h.run(tools="low_risk_only")
    assert h.tools.executed == [] and h.reviewer.reviewed == []
    assert h.results_sent(0)[0].is_rejected


async def test_reviewer_that_raises_fails_closed(h: Harness) -> None:
    async def broken(*_: Any) -> Any:
        raise RuntimeError("panel offline")

    h.reviewer.review = broken  # type: ignore[method-assign]
    h.tools.add("rm", echo, risk=RiskLevel.HIGH)
    h.session.script = [calls(("rm", {})), text("ok")]
    await h.run()
    assert h.tools.executed == []
    assert "panel offline" in h.results_sent(0)[0].output


async def test_every_result_event_follows_its_call_event(h: Harness) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", {})), calls(("read", {}), ("nope", {})), text("x")]
    await h.run(max_tool_turns=1)
    pending: list[str] = []
    for event in h.observer.events:
        if event.type == "tool_call":
            pending.append(event.id)
        elif event.type == "tool_result":
            pending.remove(event.call_id)
    assert pending == []
    assert len(h.observer.of("tool_call")) == len(h.observer.of("tool_result")) == 3
