"""The one turn (``take_turn``) on a ``Run``, driven by a phase written here: what a phase decides, and only that.

Real ``Run``, ``RunState``, ``ToolBatch`` and ``take_turn``; scripted session, fake tools and reviewer.
"""

from __future__ import annotations

import time
from dataclasses import FrozenInstanceError
from typing import Any

import pytest

from quorum.application.argument_validation import ArgumentValidator
from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.ports.llm import TurnInput
from quorum.application.tool_batch import RejectionCounter, ToolBatch, TurnCalls, Unrun
from quorum.application.use_cases.run import Run
from quorum.application.use_cases.run_deps import RunDeps
from quorum.application.use_cases.run_state import RunState, Stop
from quorum.application.use_cases.turn import take_turn
from quorum.domain.events import RunStopReason
from quorum.domain.responses import LlmResponse
from quorum.domain.secrets import Redactor
from quorum.domain.tools import RiskLevel, ToolParameter, ToolSpec
from tests.fakes import (
    FakeGateway,
    FakeTools,
    JsonSchema,
    RecordingObserver,
    ScriptedReviewer,
    ScriptedSession,
    calls,
    text,
)


class Phase:
    """A phase of its own: a nudge when the model answers without calls, an optional cut before the batch."""

    def __init__(self, run: Run, *, cut: Stop | None = None) -> None:
        deps = run.deps
        self.batch: ToolBatch = run.batch(
            executor=deps.executor,
            reviewer=deps.reviewer,
            observer=deps.observer,
            offered=run.state.offered,
            allow_high_risk=True,
        )
        self.cut = cut
        self.before: list[list[str]] = []

    def shown_plan(self) -> str:
        return "1. the phase's plan"

    def without_calls(self, response: LlmResponse) -> TurnInput:
        return TurnInput.user("call a tool", self.batch.tools)

    async def before_batch(self, pending: TurnCalls) -> Stop | None:
        self.before.append([call.name for call in pending.calls])
        return self.cut


def a_run(script: list[Any], **params: Any) -> tuple[Run, ScriptedSession, FakeTools, ScriptedReviewer]:
    session, tools = ScriptedSession(script), FakeTools()

    async def read(args: dict[str, Any]) -> str:
        return "contents"

    async def write(args: dict[str, Any]) -> str:
        return "written"

    tools.add("read_file", read, params=[ToolParameter(name="path")])
    tools.add("write_file", write, risk=RiskLevel.HIGH, params=[ToolParameter(name="path")])
    reviewer = ScriptedReviewer(tools=tools)
    deps = RunDeps(
        gateway=FakeGateway(session),
        executor=tools,
        schema=JsonSchema(),
        reviewer=reviewer,
        observer=RecordingObserver(),
        validator=ArgumentValidator(),
        redactor=Redactor(),
        clock=time.perf_counter,
        prices=None,
        windows=None,
    )
    request = RunRequest(task="t", model_id="fake:m", params=ExecutionParams(stream=False, **params))
    state = RunState(run_id="r", task="t", session=session, rejections=RejectionCounter(limit=3), model_id="fake:m")
    state.offered = ToolSpec(definition for definition, _ in tools.tools.values())
    return Run(deps, state, request), session, tools, reviewer


def events_of(run: Run) -> list[str]:
    observer = run.deps.observer
    assert isinstance(observer, RecordingObserver)
    return observer.types()


async def test_a_turn_runs_the_calls_and_returns_the_input_sending_their_results() -> None:
    run, _, _, reviewer = a_run([calls(("read_file", {"path": "a"}), ("write_file", {"path": "b"}))])
    phase = Phase(run)
    outcome = await take_turn(run, phase, TurnInput.user("t", phase.batch.tools))
    assert isinstance(outcome, TurnInput)
    assert [r.output for r in outcome.results] == ["contents", "written"]
    assert [t["name"] for t in outcome.tools or []] == ["read_file", "write_file"]
    assert events_of(run)[0] == "turn_started" and events_of(run)[-1] == "turn_finished"
    assert phase.before == [["read_file", "write_file"]]
    (context,) = reviewer.contexts  # the phase says which plan reviewers see
    assert context.plan == "1. the phase's plan" and context.run_id == "r"
    assert run.state.turns == 1 and run.state.pending is not None


async def test_a_reply_without_calls_is_what_the_phase_says() -> None:
    run, *_ = a_run([text("just words")])
    phase = Phase(run)
    outcome = await take_turn(run, phase, TurnInput.user("t"))
    assert isinstance(outcome, TurnInput) and outcome.text == "call a tool"
    assert events_of(run) == ["turn_started", "text", "turn_finished"]
    assert run.state.last_text == "just words"


async def test_a_cut_before_the_batch_leaves_the_calls_unrun_and_the_turn_to_the_phase() -> None:
    run, _, tools, _ = a_run([calls(("read_file", {"path": "a"}))])
    cut = (RunStopReason.MAX_TURNS, "enough")
    outcome = await take_turn(run, Phase(run, cut=cut), TurnInput.user("t"))
    assert outcome == cut
    assert tools.executed == []
    assert events_of(run) == ["turn_started"]  # the phase finishes the turn it cut
    assert run.state.pending is not None  # still open: closing the run answers it


async def test_a_stop_after_the_response_answers_its_calls_unexecuted_and_keeps_the_history_valid() -> None:
    run, session, tools, _ = a_run([calls(("read_file", {"path": "a"}))], max_total_tokens=1)
    run.state.usage = run.state.usage.model_copy(update={"input_tokens": 5})
    outcome = await take_turn(run, Phase(run), TurnInput.user("t"))
    assert isinstance(outcome, tuple) and outcome[0] == RunStopReason.MAX_TOKENS
    assert tools.executed == []
    assert events_of(run) == ["turn_started", "tool_call", "tool_result", "turn_finished"]
    assert session.messages[-1].role == "user"  # the call's result was recorded
    assert run.state.pending is None


async def test_closing_the_run_answers_the_open_turn_once() -> None:
    run, session, *_ = a_run([calls(("read_file", {"path": "a"}), ("write_file", {"path": "b"}))])
    await take_turn(run, Phase(run, cut=(RunStopReason.CANCELLED, None)), TurnInput.user("t"))
    run.close(Unrun("stopped"))
    results = [b for b in session.messages[-1].content]
    assert [getattr(r, "output", None) for r in results] == ["stopped", "stopped"]
    assert events_of(run).count("tool_call") == 2  # announced when closing: nothing was announced before
    before = len(session.messages)
    run.close(Unrun("again"))
    assert len(session.messages) == before and run.state.pending is None


def test_the_run_dependencies_are_frozen() -> None:
    run, *_ = a_run([])
    with pytest.raises(FrozenInstanceError):
        run.deps.prices = None  # type: ignore[misc]
