"""``ExecutionPhase``: the turns that carry the task out, repeated until the run stops.

Every run has it (after plan mode's planning phase when there is one). Its calls run with the
run's own executor and reviewer; high-risk calls only in ``tools = "all"``. ``max_tool_turns``
counts its turns after the approved plan's; the turn that passes it is not executed, and
``on_turn_limit`` says whether the model is asked once more, without tools, for its answer.

With ``output_schema``, every request asks for an answer matching it and each answer is checked
(``output_schema``): an invalid one is answered with what is wrong, at most ``ANSWER_TRIES - 1``
times, then the run stops ``invalid_output``; a valid one is the run's output, as canonical JSON.

A tool call written as text (``text_calls``) is never the run's answer: at any turn it is answered
once with a note asking for a real call; after the turn limit the model is asked once for prose,
and failing that the output says what the run did.
"""

from __future__ import annotations

import itertools

from quorum.application import model_wording as say
from quorum.application.output_schema import ANSWER_TRIES, AnswerSchema
from quorum.application.ports.llm import TurnInput
from quorum.application.text_calls import written_call
from quorum.application.tool_batch import TurnCalls, Unrun
from quorum.application.use_cases.run import Run
from quorum.application.use_cases.run_state import Stop
from quorum.application.use_cases.turn import take_turn
from quorum.domain.events import RunStopReason, TurnFinished
from quorum.domain.responses import LlmResponse
from quorum.domain.tools import ToolCall, ToolResult, ToolSpec


class ExecutionPhase:
    """The execution phase of ``run``, offering ``offered`` (a ``Phase`` for ``take_turn``)."""

    def __init__(self, run: Run, offered: ToolSpec) -> None:
        deps = run.deps
        self._run = run
        self._nudged = False
        self._stop_blocked = False
        schema = run.request.output_schema
        self._answers = AnswerSchema(schema) if schema is not None else None
        self._tries = 0
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
        if self._answers is not None:
            self._run.state.answer_schema = self._answers.asked
        while True:
            outcome = await take_turn(self._run, self, turn_input)
            if not isinstance(outcome, TurnInput):
                again = await self._stop_hooks(outcome)
                if again is None:
                    return outcome
                outcome = again
            turn_input = outcome

    async def _stop_hooks(self, stop: Stop) -> TurnInput | None:
        """The next turn when a ``stop`` hook blocks the run's end (its reason as the user's message); else None.

        Only an end of turn is put to the hooks, and only within ``max_tool_turns``: a hook that
        always blocks cannot keep the run going past its turn limit. ``stop_hook_active`` tells
        a hook it already blocked once in this run.
        """
        run = self._run
        state, hooks = run.state, run.state.hooks
        if hooks is None or stop[0] is not RunStopReason.END_TURN or not hooks.names("stop"):
            return None
        if state.turns - (state.plan.turn if state.plan else 0) >= run.params.max_tool_turns:
            return None
        reason = await hooks.on_stop(stop_hook_active=self._stop_blocked)
        if reason is None:
            return None
        self._stop_blocked = True
        return TurnInput.user(reason, self.batch.tools)

    def shown_plan(self) -> str:
        plan = self._run.state.plan
        return plan.plan.numbered() if plan else ""

    def without_calls(self, response: LlmResponse) -> Stop | TurnInput:
        """The run's end, unless the answer is only a tool call written as text (asked once for a real call)."""
        name = written_call(response.text_content(), self._tool_names())
        if name is None:
            return self._checked(response)
        if not self._nudged:
            self._nudged = True
            return TurnInput.user(say.written_call_note(name), self.batch.tools)
        if self._answers is not None:
            return self._checked(response)
        self._run.state.last_text = say.wrote_calls_again(name, say.what_was_done(self._calls_made()))
        return RunStopReason.END_TURN, None

    def _checked(self, response: LlmResponse) -> Stop | TurnInput:
        """The end of a run whose answer is valid (or free); else one more try, or the stop ``invalid_output``."""
        if self._answers is None:
            return RunStopReason.END_TURN, None
        text = response.text_content()
        checked = self._answers.check(text)
        self._tries += 1
        if checked.valid:
            self._run.state.last_text = checked.document
            return RunStopReason.END_TURN, None
        left = ANSWER_TRIES - self._tries
        if left > 0:
            return TurnInput.user(say.invalid_answer(checked.problems, left), self.batch.tools)
        return RunStopReason.INVALID_OUTPUT, say.invalid_output(self._tries, text, checked.problems)

    def _tool_names(self) -> list[str]:
        return [schema["name"] for schema in self.batch.tools]

    def _calls_made(self) -> list[tuple[str, str]]:
        """(tool, outcome) of each call this run made, from its session's history (what compaction kept).

        Results are matched to the calls of the message just before them: a model may reuse an id
        in a later turn.
        """
        run = self._run
        history = run.state.session.history()[len(run.request.history) :]
        made: list[tuple[str, str]] = []
        for asked, answered in itertools.pairwise(history):
            outcomes = {
                block.call_id: "rejected" if block.is_rejected else "error" if block.is_error else "ok"
                for block in answered.content
                if isinstance(block, ToolResult)
            }
            made += [
                (block.name, outcomes.get(block.native_id, "no result"))
                for block in asked.content
                if isinstance(block, ToolCall) and asked.role == "assistant"
            ]
        return made

    async def _prose_answer(self, response: LlmResponse) -> None:
        """After the turn limit: an answer that is a tool call written as text gets one request for prose."""
        run = self._run
        if written_call(response.text_content(), self._tool_names()) is None:
            return
        again = await run.ask(TurnInput.user(say.PROSE_NOTE, None))
        if again.tool_calls():
            unrun = Unrun.stopping(say.turn_limit_reached(run.params.max_tool_turns))
            run.close(unrun, TurnCalls(again.tool_calls(), announced=set(range(len(again.tool_calls())))))
        if again.tool_calls() or written_call(again.text_content(), self._tool_names()) is not None:
            done = say.what_was_done(self._calls_made())
            run.state.last_text = say.stopped_with_calls(run.params.max_tool_turns, done)

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
        summary = TurnInput.answering(pending.for_session(), None, note=say.TURN_LIMIT_NOTE)
        response = await run.ask(summary)
        leftover = response.tool_calls()
        if leftover:  # the model ignored the instruction; keep the history valid all the same
            # Only results are emitted for these: a tool_call event here would be read as part of
            # the turn's first response by anything rebuilding the conversation from the events.
            # Not renamed (call_ids): they never run nor wait, and the run log tells this response
            # apart from the turn's by a result answering an id a second time.
            unannounced = TurnCalls(leftover, announced=set(range(len(leftover))))
            run.close(unrun, unannounced)
        else:
            await self._prose_answer(response)
        run.emit(TurnFinished(turn=run.state.turns))
        return RunStopReason.MAX_TURNS, detail
