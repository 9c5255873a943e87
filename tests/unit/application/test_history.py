"""rebuild_history: the events a run emits describe exactly the conversation its session kept."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from quorum.application.history import INTERRUPTED_RESULT, rebuild_history, unanswered_calls
from quorum.domain.events import RunStarted, TextDelta, ToolCallEvent, ToolResultEvent, TurnStarted
from quorum.domain.messages import Message
from quorum.domain.responses import LlmResponse, StopReason, TextBlock
from quorum.domain.tools import RiskLevel, ToolCall, ToolResult
from tests.fakes import calls, text, wait_forever
from tests.support.call_ids import with_live_ids
from tests.unit.application.conftest import Harness


async def echo(args: dict[str, Any]) -> str:
    return f"echo {args}"


def rebuilt(h: Harness) -> list[Message]:
    """The history rebuilt from the run's events, each call under the id the model gave it.

    The fake model numbers its calls c1, c2… in every turn; the run records a reused id as a fresh
    one (``c1_2``) while the session keeps the model's (``tests.support.call_ids``).
    """
    return with_live_ids(rebuild_history(h.observer.events), h.session.history())


@pytest.mark.parametrize("stream", [True, False])
async def test_multi_turn_run_rebuilds_to_the_session_history(h: Harness, stream: bool) -> None:
    h.tools.add("read", echo)
    h.tools.add("write", echo, risk=RiskLevel.HIGH)
    h.reviewer.verdicts = {"c2": False}
    h.session.script = [
        calls(("read", {"p": "a"}), ("write", {"p": "b"}), say="let me look"),
        calls(("nope", {}), ("read", {"p": "c"})),
        text("all done, the answer is 42"),
    ]
    result = await h.run(stream=stream)
    assert result.stop_reason == "end_turn"
    assert rebuilt(h) == h.session.history()


async def test_results_follow_the_emission_order_of_the_calls_not_finishing_order(h: Harness) -> None:
    first_may_finish = asyncio.Event()

    async def slow(_: dict[str, Any]) -> str:
        await first_may_finish.wait()
        return "slow"

    async def fast(_: dict[str, Any]) -> str:
        first_may_finish.set()
        return "fast"

    h.tools.add("slow", slow)
    h.tools.add("fast", fast)
    h.session.script = [calls(("slow", {}), ("fast", {})), text("ok")]
    await h.run()
    finished = [e.call_id for e in h.observer.of("tool_result")]
    assert finished == ["c2", "c1"]
    history = rebuilt(h)
    assert [b.call_id for b in history[2].content] == ["c1", "c2"]
    assert history == h.session.history()


@pytest.mark.parametrize("mode", ["summarize", "stop"])
async def test_turn_limit_runs_rebuild_with_the_unannounced_calls_and_the_note(h: Harness, mode: str) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", {})), calls(("read", {}), ("read", {})), text("best guess")]
    result = await h.run(max_tool_turns=1, on_turn_limit=mode)
    assert result.stop_reason == "max_turns"
    assert rebuilt(h) == h.session.history()
    assert unanswered_calls(rebuilt(h)) == []


async def test_turn_limit_summary_that_still_calls_tools_rebuilds_valid(h: Harness) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", {})), calls(("read", {})), calls(("read", {}), say="hmm")]
    await h.run(max_tool_turns=1)
    assert rebuilt(h) == h.session.history()


async def test_max_tokens_response_with_calls_rebuilds_valid(h: Harness) -> None:
    h.tools.add("read", echo)
    cut = LlmResponse(
        content=(TextBlock(text="about to"), ToolCall(native_id="x1", name="read", arguments={})),
        stop_reason=StopReason.max_tokens(),
    )
    h.session.script = [calls(("read", {})), cut]
    result = await h.run()
    assert result.stop_reason == "max_tokens"
    assert rebuilt(h) == h.session.history()


async def test_consecutive_rejections_rebuild_to_the_session_history(h: Harness) -> None:
    h.tools.add("rm", echo, risk=RiskLevel.HIGH)
    h.reviewer.default = False
    h.session.script = [calls(("rm", {"p": "/"}), ("rm", {"p": "/etc"}), ("rm", {"p": "/usr"}))]
    result = await h.run(max_rejections=2)
    assert result.stop_reason == "rejected"
    history = rebuilt(h)
    assert history == h.session.history()
    assert all(b.is_error for b in history[-1].content)


async def test_cancelled_run_rebuilds_to_the_session_history(h: Harness) -> None:
    started = asyncio.Event()

    async def block(args: dict[str, Any]) -> str:
        started.set()
        return await wait_forever(args)

    h.tools.add("block", block)
    h.session.script = [calls(("block", {}))]
    task = asyncio.create_task(h.run())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert rebuilt(h) == h.session.history()


async def test_every_prefix_of_the_events_rebuilds_to_a_valid_history(h: Harness) -> None:
    """A run killed after any event still gives a history every provider accepts."""
    h.tools.add("read", echo)
    h.tools.add("write", echo, risk=RiskLevel.HIGH)
    h.session.script = [
        calls(("read", {}), ("write", {}), say="first"),
        calls(("read", {}), ("read", {})),
        text("done"),
    ]
    await h.run()
    events = h.observer.events
    for cut in range(1, len(events) + 1):
        history = rebuild_history(events[:cut])
        assert unanswered_calls(history) == [], cut
        assert history[0] == Message(role="user", content=(TextBlock(text="do it"),))
        roles = [m.role for m in history]
        assert all(a != b for a, b in itertools.pairwise(roles)), (cut, roles)


def test_calls_without_results_get_an_interrupted_error_result() -> None:
    events = [
        RunStarted(run_id="r", model="m:x", task="go"),
        TurnStarted(turn=1),
        TextDelta(text="run"),
        TextDelta(text="ning both"),
        ToolCallEvent(id="a", name="sh", arguments={"cmd": "ls"}, risk=RiskLevel.LOW),
        ToolCallEvent(id="b", name="sh", arguments={"cmd": "make"}, risk=RiskLevel.LOW),
        ToolResultEvent(call_id="b", name="sh", is_error=False, is_rejected=False, output="ok", duration_ms=1),
    ]
    assert rebuild_history(events) == [
        Message(role="user", content=(TextBlock(text="go"),)),
        Message(
            role="assistant",
            content=(
                TextBlock(text="running both"),
                ToolCall(native_id="a", name="sh", arguments={"cmd": "ls"}),
                ToolCall(native_id="b", name="sh", arguments={"cmd": "make"}),
            ),
        ),
        Message(
            role="user",
            content=(
                ToolResult(call_id="a", name="sh", output=INTERRUPTED_RESULT, is_error=True),
                ToolResult(call_id="b", name="sh", output="ok"),
            ),
        ),
    ]


def test_a_run_killed_before_the_model_answered_ends_with_the_task() -> None:
    events = [RunStarted(run_id="r", model="m:x", task="go"), TurnStarted(turn=1)]
    assert rebuild_history(events) == [Message(role="user", content=(TextBlock(text="go"),))]


async def test_turn_limit_summary_with_only_calls_reusing_ids_rebuilds_valid(h: Harness) -> None:
    h.tools.add("read", echo)
    h.session.script = [calls(("read", {})), calls(("read", {})), calls(("read", {}))]
    await h.run(max_tool_turns=1)
    history = rebuilt(h)
    assert history == h.session.history()
    assert unanswered_calls(history) == []
