"""The turn, the one step every phase of a run repeats: ask the model, count, check the stops, run the calls.

``take_turn`` is the turn of the execution phase (``ExecutionPhase``) and of plan mode's planning
phase (``PlanPhase``) alike. A ``Phase`` supplies what differs between them: the batch that runs
the calls (its tools, executor, reviewer and observer), the plan reviewers are shown, what a
response without calls means, and a check before the calls run (the execution phase's turn limit).
"""

from __future__ import annotations

from typing import Protocol

from quorum.application.ports.llm import TurnInput
from quorum.application.tool_batch import ReviewBrief, ToolBatch, TurnCalls, Unrun
from quorum.application.use_cases.run import Run
from quorum.application.use_cases.run_state import Stop
from quorum.domain.events import TurnFinished, TurnStarted
from quorum.domain.responses import LlmResponse


class Phase(Protocol):
    """What one phase of a run makes of the turn it repeats."""

    batch: ToolBatch
    """Runs a turn's calls: the phase's tools, executor, reviewer and observer."""

    def shown_plan(self) -> str:
        """The approved plan reviewers are shown beside each call (numbered text), or empty."""
        ...

    def without_calls(self, response: LlmResponse) -> Stop | TurnInput:
        """What ``response``, which has no tool calls, leads to: the run's stop, or the next turn's input."""
        ...

    async def before_batch(self, pending: TurnCalls) -> Stop | None:
        """A stop before ``pending``'s calls run (the phase then finishes the turn itself), or None to run them."""
        ...


async def take_turn(run: Run, phase: Phase, turn_input: TurnInput) -> Stop | TurnInput:
    """One turn of ``phase``: send ``turn_input``, then run the response's calls; the next input or the stop.

    Emits ``turn_started`` and ``turn_finished``. A stop after the response (token budget, output
    limit, cost cap) answers its calls unexecuted; after the batch, ``Run.after_batch`` decides.
    """
    state = run.state
    state.turns += 1
    run.emit(TurnStarted(turn=state.turns))
    response = await run.ask(turn_input)
    calls = response.tool_calls()
    stop = run.stop_after(response)
    if stop is not None:
        if calls:
            run.close(Unrun.stopping(str(stop[1])), TurnCalls(calls))
        run.emit(TurnFinished(turn=state.turns))
        return stop
    if not calls:
        run.emit(TurnFinished(turn=state.turns))
        return phase.without_calls(response)
    pending = TurnCalls(calls)
    state.pending = pending
    cut = await phase.before_batch(pending)
    if cut is not None:
        return cut
    brief = ReviewBrief(state.run_id, state.task, response.text_content(), phase.shown_plan())
    await phase.batch.run(pending, brief=brief, rejections=state.rejections)
    run.emit(TurnFinished(turn=state.turns))
    return run.after_batch(pending, await phase.batch.still_offered())
