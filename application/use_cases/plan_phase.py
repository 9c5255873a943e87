"""PlanPhase: plan mode's planning phase — explore read-only, propose a plan, have it reviewed.

``RunAgent`` runs it first when a run is in plan mode; it ends with the first input of the
execution phase (the approved ``propose_plan`` call's result, all tools offered, the plan in the
system prompt), or with the run's stop. Its turns are ``take_turn``'s, as the execution phase's.
"""

from __future__ import annotations

from quorum.application import model_wording as say
from quorum.application.execution import RunRequest
from quorum.application.plan_mode import (
    PROPOSE_PLAN,
    PROPOSE_PLAN_TOOL,
    PlanEvents,
    PlanningExecutor,
    PlanningReviewer,
    execution_prompt,
    planning_prompt,
)
from quorum.application.ports.llm import ToolSchemas, TurnInput
from quorum.application.tool_batch import TurnCalls, Unrun
from quorum.application.use_cases.run import Run
from quorum.application.use_cases.run_state import Stop
from quorum.application.use_cases.turn import take_turn
from quorum.domain.events import RunStopReason
from quorum.domain.plans import ApprovedPlan
from quorum.domain.responses import LlmResponse
from quorum.domain.tools import ToolSpec


def plans(request: RunRequest) -> bool:
    """Whether ``request`` starts (or, continued, is still in) a planning phase.

    A continued run plans while its open turn holds a ``propose_plan`` call; a new one when
    ``params.plan`` is ``always`` and no plan is approved yet.
    """
    if request.resume is not None:
        return any(call.name == PROPOSE_PLAN for call in request.resume.calls)
    return request.params.plan == "always" and request.approved_plan is None


class PlanPhase:
    """The planning phase of ``run``, on the run's own session, state and events (a ``Phase`` for ``take_turn``).

    Only the low-risk tools of ``available`` and ``propose_plan`` are offered, and only low-risk
    calls execute (``PlanningExecutor``). The phase ends when a plan is approved (``plan`` returns
    the execution phase's first input and the plan is the run's ``state.plan``), when its review
    is deferred (``awaiting_approval``), after ``max_rejections`` rejections in a row
    (``rejected``), at the run's usual limits, or after ``max_plan_turns`` turns without an
    approved plan (``no_plan``). A response without calls is answered with a nudge to plan.
    """

    def __init__(self, run: Run, available: ToolSpec) -> None:
        offered = ToolSpec([*available.low_risk_tools(), PROPOSE_PLAN_TOOL])
        self._run = run
        self._events = PlanEvents(run.deps.observer, run.state)
        self._executor = PlanningExecutor(run.deps.executor, offered)
        self.batch = run.batch(
            executor=self._executor,
            reviewer=PlanningReviewer(run.deps.reviewer, self._events),
            observer=self._events,
            offered=offered,
            allow_high_risk=True,  # propose_plan is reviewed; PlanningReviewer refuses every other call
        )

    async def plan(self, execution_tools: ToolSchemas) -> Stop | TurnInput:
        """Plan until a plan is approved; the run's stop, or the execution phase's first input.

        That input answers the approved ``propose_plan`` call and offers ``execution_tools``.
        """
        run, request = self._run, self._run.request
        run.reopen(planning_prompt(request.system_prompt))
        planned = 0
        outcome: Stop | TurnInput
        if request.resume is not None:
            self._events.expect(request.resume.calls)
            outcome = await run.settle(request.resume, self.batch)
        else:
            outcome = TurnInput.user(request.task, self.batch.tools, request.task_images)
        while True:
            if self._executor.approved is not None and isinstance(outcome, TurnInput):
                return self._execute(outcome, execution_tools)
            if not isinstance(outcome, TurnInput):
                return outcome
            if planned >= run.params.max_plan_turns:
                detail = say.no_plan(run.params.max_plan_turns)
                run.close(Unrun.stopping(detail))  # keep history valid
                return RunStopReason.NO_PLAN, detail
            planned += 1
            outcome = await take_turn(run, self, outcome)

    def shown_plan(self) -> str:
        return ""  # the plan under review is the call itself

    def without_calls(self, response: LlmResponse) -> TurnInput:
        return TurnInput.user(say.PLAN_NUDGE, self.batch.tools)

    async def before_batch(self, pending: TurnCalls) -> None:
        self._events.expect(pending.calls)  # to report each plan's review

    def _execute(self, answer: TurnInput, execution_tools: ToolSchemas) -> TurnInput:
        """Start the execution phase: the plan joins the system prompt; all tools are offered."""
        assert self._executor.approved is not None
        run = self._run
        run.state.plan = ApprovedPlan(plan=self._executor.approved, turn=run.state.turns)
        run.reopen(execution_prompt(run.request.system_prompt, run.state.plan))
        return TurnInput.answering(answer.results, execution_tools)
