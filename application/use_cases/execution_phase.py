"""``ExecutionPhase``: the turns that carry the task out, repeated until the run stops.

Every run has it (after plan mode's planning phase when there is one). Its calls run with the
run's own executor and reviewer; high-risk calls only in ``tools = "all"``. ``max_tool_turns``
counts its turns after the approved plan's; the turn that passes it is not executed, and
``on_turn_limit`` says whether the model is asked once more, without tools, for its answer.
"""

from __future__ import annotations

from quorum.application import model_wording as say
from quorum.application.ports.llm import TurnInput
from quorum.application.tool_batch import TurnCalls, Unrun
from quorum.application.use_cases.run import Run
from quorum.application.use_cases.run_state import Stop
from quorum.application.use_cases.turn import take_turn
from quorum.domain.events import RunStopReason, TurnFinished
from quorum.domain.tools import ToolSpec


class ExecutionPhase:
    """The execution phase of ``run``, offering ``offered`` (a ``Phase`` for ``take_turn``)."""

    def __init__(self, run: Run, offered: ToolSpec) -> None:
        deps = run.deps
        self._run = run
        self.batch = run.batch(
            executor=deps.executor,
            reviewer=deps.reviewer,
            observer=deps.observer,
            offered=offered,
            allow_high_risk=run.params.tools == "all",
        )

    async def repeat(self, first: TurnInput) -> Stop:
        """Take turns from ``first`` until the run stops; return the stop."""
        turn_input = first
        while True:
            outcome = await take_turn(self._run, self, turn_input)
            if not isinstance(outcome, TurnInput):
                return outcome
            turn_input = outcome

    def shown_plan(self) -> str:
        plan = self._run.state.plan
        return plan.plan.numbered() if plan else ""

    def without_calls(self) -> Stop:
        return RunStopReason.END_TURN, None

    async def before_batch(self, pending: TurnCalls) -> Stop | None:
        """The turn limit: past ``max_tool_turns`` (planning turns apart), the calls do not run."""
        state = self._run.state
        if state.turns - (state.plan.turn if state.plan else 0) > self._run.params.max_tool_turns:
            return await self._turn_limit(pending)
        return None

    async def _turn_limit(self, pending: TurnCalls) -> Stop:
        run, params = self._run, self._run.params
        detail = say.turn_limit_reached(params.max_tool_turns)
        unrun = Unrun.stopping(detail)
        if params.on_turn_limit == "stop":
            run.close(unrun, pending)
            run.emit(TurnFinished(turn=run.state.turns))
            return RunStopReason.MAX_TURNS, detail
        run.answer_missing(pending, unrun)
        summary = TurnInput.answering(pending.ordered(), None, note=say.TURN_LIMIT_NOTE)
        response = await run.ask(summary)
        leftover = response.tool_calls()
        if leftover:  # the model ignored the instruction; keep the history valid all the same
            # Only results are emitted for these: a tool_call event here would be read as part of
            # the turn's first response by anything rebuilding the conversation from the events.
            unannounced = TurnCalls(leftover, announced=set(range(len(leftover))))
            run.close(unrun, unannounced)
        run.emit(TurnFinished(turn=run.state.turns))
        return RunStopReason.MAX_TURNS, detail
