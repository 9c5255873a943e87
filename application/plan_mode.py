"""Plan mode's parts: the ``propose_plan`` tool and the guards that keep the planning phase read-only.

The planning phase runs its calls through the ordinary ``ToolBatch`` (validation, policy screen,
parallel low-risk calls, review, deferral), with three wrappers around the run's ports:

- ``PlanningExecutor`` is the enforcement: it executes a call only if it is low risk (assessed
  again, per call) and runs it ``UNREVIEWED`` (confined), whatever clearance it is handed. A
  high-risk call never reaches the real executor in this phase, even approved by a rule, a
  reviewer or ``--yes``. An approved ``propose_plan`` call "executes" here: the plan is recorded.
- ``PlanningReviewer`` routes ``propose_plan`` to the plan review (``review_plan``: no policy
  rule decides a plan) and refuses every other reviewed call of the phase.
- ``PlanEvents`` adds ``plan_proposed`` and ``plan_reviewed`` to the run's events.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Protocol

from pydantic import ValidationError

from quorum.application import model_wording as say
from quorum.application.ports.observer import RunObserver
from quorum.application.ports.reviewer import CallReviewer, ReviewContext
from quorum.application.ports.tool_executor import ToolExecutor
from quorum.domain.events import PlanProposed, PlanReviewed, ReviewEvent, RunEvent
from quorum.domain.plans import ApprovedPlan, Plan
from quorum.domain.policy import PolicyRule
from quorum.domain.review import ReviewDecision
from quorum.domain.tools import Clearance, RiskAssessment, RiskLevel, ToolCall, ToolDefinition, ToolResult, ToolSpec

PROPOSE_PLAN = "propose_plan"

_STRINGS = {"type": "array", "items": {"type": "string"}}
PROPOSE_PLAN_TOOL = ToolDefinition(
    name=PROPOSE_PLAN,
    description=say.PROPOSE_PLAN_DESCRIPTION,
    risk=RiskLevel.HIGH,  # reviewed: the panel votes and a person confirms
    input_schema={
        "type": "object",
        "properties": {
            "summary": {"type": "string", "minLength": 1, "description": "What the plan achieves, briefly."},
            "steps": {
                "type": "array",
                "minItems": 1,
                "description": "The steps, in order.",
                "items": {
                    "type": "object",
                    "properties": {
                        "description": {"type": "string", "minLength": 1, "description": "What the step does."},
                        "files": {**_STRINGS, "description": "Files the step changes."},
                        "commands": {**_STRINGS, "description": "Commands the step runs."},
                    },
                    "required": ["description"],
                    "additionalProperties": False,
                },
            },
        },
        "required": ["summary", "steps"],
        "additionalProperties": False,
    },
)
"""The one tool plan mode adds to the planning phase; its arguments are a ``Plan``."""


def plan_of(call: ToolCall) -> Plan | None:
    """The plan a ``propose_plan`` call carries, or None when it is not one or not well formed."""
    if call.name != PROPOSE_PLAN or call.arguments_error:
        return None
    try:
        return Plan.model_validate(dict(call.arguments))
    except ValidationError:
        return None


def execution_prompt(system_prompt: str | None, approved: ApprovedPlan | None) -> str | None:
    """The system prompt of the execution phase: the run's, then the approved plan (unchanged without one)."""
    if approved is None:
        return system_prompt
    section = say.approved_plan_prompt(approved.plan.numbered())
    return f"{system_prompt}\n\n{section}" if system_prompt else section


def planning_prompt(system_prompt: str | None) -> str:
    """The system prompt of the planning phase: the run's, then the planning instructions."""
    return f"{system_prompt}\n\n{say.PLANNING_INSTRUCTIONS}" if system_prompt else say.PLANNING_INSTRUCTIONS


class PlanningExecutor:
    """A ``ToolExecutor`` for the planning phase: low-risk calls only, confined; plans recorded.

    Args:
        inner: the run's executor.
        offered: the tools of the phase (low-risk ones and ``propose_plan``).
    """

    def __init__(self, inner: ToolExecutor, offered: ToolSpec) -> None:
        self._inner = inner
        self._offered = offered
        self.approved: Plan | None = None
        """The plan of the last ``propose_plan`` call that passed review (None until one did)."""

    async def list_tools(self) -> ToolSpec:
        return self._offered

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        if call.name == PROPOSE_PLAN:
            return RiskAssessment(level=RiskLevel.HIGH, reason="a plan is reviewed before anything changes")
        return self._inner.assess_risk(call, tool)

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        if call.name == PROPOSE_PLAN:
            plan = plan_of(call)
            if clearance is not Clearance.APPROVED or plan is None:
                refused = say.not_executed_because(call.name, say.PLAN_NOT_APPROVED)
                return ToolResult(output=refused, is_error=True)
            self.approved = plan
            return ToolResult(output=say.PLAN_APPROVED)
        tool = self._offered.get(call.name)
        if tool is None or self._inner.assess_risk(call, tool).level is not RiskLevel.LOW:
            return ToolResult(output=say.not_executed_because(call.name, say.PLANNING_REFUSED), is_error=True)
        return await self._inner.execute(call, clearance=Clearance.UNREVIEWED)


class PlanningReviewer:
    """A ``CallReviewer`` for the planning phase: plans go to ``review_plan``, other reviewed calls are refused.

    ``propose_plan`` calls are screened by no policy rule (a rule can neither approve nor deny a
    plan); every other call is screened by the run's rules as usual. ``events`` is told of each
    well-formed plan before its review (``plan_proposed``).
    """

    def __init__(self, inner: CallReviewer, events: PlanEvents) -> None:
        self._inner = inner
        self._events = events

    def screen(self, call: ToolCall, tool: ToolDefinition) -> PolicyRule | None:
        return None if call.name == PROPOSE_PLAN else self._inner.screen(call, tool)

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        if call.name != PROPOSE_PLAN:
            return ReviewDecision(approved=False, decided_by="auto", reason=say.PLANNING_REFUSED)
        plan = plan_of(call)
        if plan is None:
            return ReviewDecision(approved=False, decided_by="auto", reason=say.PLAN_MALFORMED)
        self._events.proposed(call, plan)
        return await self.review_plan(call, context.model_copy(update={"subject": "plan"}))

    async def review_plan(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        return await self._inner.review_plan(call, context)


class TurnCount(Protocol):
    """Where the run's current turn number is read (the run's state)."""

    turns: int


class PlanEvents:
    """A ``RunObserver`` adding plan mode's events: ``plan_proposed`` (``proposed``) and ``plan_reviewed``.

    ``plan_reviewed`` follows the ``review`` event of a ``propose_plan`` call whose plan it knows
    (``expect``), whichever path decided it: the review now, or a person later (``quorum approve``);
    it carries the turn ``count`` is at then.
    """

    def __init__(self, observer: RunObserver, count: TurnCount) -> None:
        self._observer = observer
        self._count = count
        self._plans: dict[str, Plan] = {}
        self.attempts = 0

    def expect(self, calls: Iterable[ToolCall]) -> None:
        """Remember the plans of ``calls`` (a turn's calls), to report their review."""
        for call in calls:
            plan = plan_of(call)
            if plan is not None:
                self._plans[call.native_id] = plan

    def proposed(self, call: ToolCall, plan: Plan) -> None:
        self.attempts += 1
        self._plans[call.native_id] = plan
        self._observer.on_event(PlanProposed(call_id=call.native_id, plan=plan, attempt=self.attempts))

    def on_event(self, event: RunEvent) -> None:
        self._observer.on_event(event)
        if isinstance(event, ReviewEvent) and event.call_id in self._plans:
            self._observer.on_event(
                PlanReviewed(
                    call_id=event.call_id,
                    plan=self._plans[event.call_id],
                    approved=event.approved,
                    decided_by=event.decided_by,
                    votes=event.votes,
                    reason=event.reason,
                    by=event.by,
                    turn=self._count.turns,
                    rule=event.rule,
                    votes_needed=event.votes_needed,
                )
            )
