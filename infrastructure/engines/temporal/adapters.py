"""The workflow's tool-side ports: tools, risks and votes come from the worker through activities.

- ``ActivityExecutor``: tools and their risks come from the worker (``Prepared``, ``CallFacts``);
  a high-risk call is one attempt only: an attempt whose outcome is unknown (worker lost,
  timed out) becomes an error result saying so, never a silent retry. Low-risk calls may retry.
- ``ActivityPanel`` (votes), ``FactsViewer`` (what policy rules see), ``WaitingHumanStep``,
  ``PreparedSchemas`` (the schemas the worker derived).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import timedelta
from typing import Any

from temporalio import workflow
from temporalio.common import RetryPolicy
from temporalio.exceptions import ActivityError

with workflow.unsafe.imports_passed_through():
    from quorum.application import model_wording as say
    from quorum.application.ports.reviewer import ReviewContext
    from quorum.domain.policy import ArgumentView
    from quorum.domain.review import ReviewDecision, Vote
    from quorum.domain.tools import Clearance, RiskAssessment, RiskLevel, ToolCall, ToolDefinition, ToolResult, ToolSpec
    from quorum.infrastructure.engines.temporal.messages import CallFacts, PanelRequest, Prepared, RunSpec, ToolRequest
    from quorum.infrastructure.engines.temporal.policies import LOW_RISK, MODEL, ONCE, cause_of, raise_if_cancelled
    from quorum.infrastructure.review.human import decision_without_asking


class ActivityExecutor:
    """``ToolExecutor`` of the workflow: the worker's tools; each call an activity."""

    def __init__(self, spec: RunSpec, prepared: Prepared, facts: Mapping[str, CallFacts]) -> None:
        self._spec = spec
        self._tools = ToolSpec(prepared.tools)
        self._facts = facts

    async def list_tools(self) -> ToolSpec:
        return self._tools

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        facts = self._facts.get(call.native_id)
        if facts is None:  # not assessed by a worker: fail closed
            return RiskAssessment(level=RiskLevel.HIGH, reason="not assessed")
        return facts.risk

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        facts = self._facts.get(call.native_id)
        high = clearance is not Clearance.UNREVIEWED or facts is None or facts.risk.level is not RiskLevel.LOW
        timeout = self._spec.params.tool_timeout_seconds
        request = ToolRequest(
            run_id=self._spec.run_id,
            workspace=self._spec.workspace,
            call=call,
            clearance=clearance,
            timeout=timeout,
            trace=self._spec.trace,
        )
        try:
            return await workflow.execute_activity(
                "quorum.tool",
                request,
                result_type=ToolResult,
                start_to_close_timeout=timedelta(seconds=timeout + 30),
                heartbeat_timeout=timedelta(seconds=self._spec.heartbeat_timeout),
                retry_policy=ONCE if high else LOW_RISK,
            )
        except ActivityError as error:
            raise_if_cancelled(error)  # the run's cancel: the loop answers the call and ends cancelled
            if high:
                return ToolResult(output=say.outcome_unknown(cause_of(error)), is_error=True)
            return ToolResult(output=f"the call failed on every attempt: {cause_of(error)}", is_error=True)


class ActivityPanel:
    """``ActionReviewer``: the worker's reviewer panel votes in an activity; the gate decides here."""

    def __init__(self, spec: RunSpec) -> None:
        self._spec = spec

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        request = PanelRequest(
            run_id=self._spec.run_id, workspace=self._spec.workspace, call=call, context=context, trace=self._spec.trace
        )
        try:
            return await workflow.execute_activity(
                "quorum.panel",
                request,
                result_type=ReviewDecision,
                start_to_close_timeout=MODEL,
                retry_policy=RetryPolicy(maximum_attempts=2),
            )
        except ActivityError as error:  # fail closed
            raise_if_cancelled(error)
            return ReviewDecision(
                approved=False, decided_by="quorum", reason=say.review_failed("the review panel", cause_of(error))
            )


class FactsViewer:
    """``CallViewer``: what policy rules see of a call, resolved on the worker with the response."""

    def __init__(self, facts: Mapping[str, CallFacts]) -> None:
        self._facts = facts

    def view(self, call: ToolCall, tool: ToolDefinition | None) -> Mapping[str, ArgumentView]:
        facts = self._facts.get(call.native_id)
        return dict(facts.views or {}) if facts is not None else {}


class WaitingHumanStep:
    """``HumanStep``: decides at once (``auto_*``) or defers to a person, whose Signal the workflow awaits."""

    def __init__(self, mode: str) -> None:
        self.mode = mode

    async def decide(
        self, call: ToolCall, context: ReviewContext, *, why: str, votes: Sequence[Vote] = ()
    ) -> ReviewDecision:
        # Anything but auto_* waits for a person's Signal: deferred, as hil_mode = "defer" does.
        mode = self.mode if self.mode in ("auto_approve", "auto_reject") else "defer"
        decided = decision_without_asking(mode, why, votes)
        assert decided is not None  # every mode above decides without asking
        return decided


class PreparedSchemas:
    """``ToolSchemaPort``: the schemas the worker derived for its tools."""

    def __init__(self, prepared: Prepared) -> None:
        self._schemas = prepared.schemas

    def tool_to_schema(self, tool: ToolDefinition) -> dict[str, Any]:
        return dict(self._schemas[tool.name])

    def all_tools_schema(self, spec: ToolSpec) -> list[dict[str, Any]]:
        return [self.tool_to_schema(tool) for tool in spec]

    def low_risk_tools_schema(self, spec: ToolSpec) -> list[dict[str, Any]]:
        return [self.tool_to_schema(tool) for tool in spec.low_risk_tools()]
