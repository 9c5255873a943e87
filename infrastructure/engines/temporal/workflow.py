"""The run workflow: ``RunAgent``, ``ToolBatch`` and ``ReviewGate`` unchanged, their ports backed by activities.

Deterministic in the workflow: the loop, the scheduling of calls, the review gate (policy rules,
the panel's outcome, escalation), deferral and waiting for people. Activities: model requests,
tool calls, the panel's votes, run-log writes, claiming decisions (see ``activities``).

Workflow-side adapters implement the application's ports by calling ``workflow.execute_activity``:
``model_session`` (the model), ``adapters`` (tools, panel, policy views, the human step) and
``recorder`` (the run's events, numbered here, appended to the run log by an activity).
"""

from __future__ import annotations

import asyncio
import contextlib
from datetime import timedelta

from temporalio import workflow

with workflow.unsafe.imports_passed_through():
    from quorum.application import model_wording as say
    from quorum.application.execution import RunRequest, RunResult
    from quorum.application.ports.approvals import CallDecision
    from quorum.application.review_gate import ReviewGate
    from quorum.application.use_cases.run_agent import RunAgent
    from quorum.domain.events import RunEvent, RunStopReason
    from quorum.infrastructure.engines.temporal.adapters import (
        ActivityExecutor,
        ActivityPanel,
        FactsViewer,
        PreparedSchemas,
        WaitingHumanStep,
    )
    from quorum.infrastructure.engines.temporal.messages import (
        DECIDE_SIGNAL,
        STATUS_QUERY,
        WORKFLOW_NAME,
        CallFacts,
        Claimed,
        ClaimRequest,
        Decisions,
        Prepared,
        RunSpec,
        WorkflowStatus,
    )
    from quorum.infrastructure.engines.temporal.model_session import ActivityGateway, ReplyPrices
    from quorum.infrastructure.engines.temporal.policies import MODEL, QUICK, RETRY
    from quorum.infrastructure.engines.temporal.recorder import WorkflowRecorder


EVENTS_RIDE_ALONG = "model-request-records-events"
"""The patch of decision 274 (``workflow.patched``): the model activity appends the pending events."""


class _CancelAtStart:
    """A run observer that cancels the run's own task at its first event (then passes every event on)."""

    def __init__(self, recorder: WorkflowRecorder) -> None:
        self._recorder, self._started = recorder, False

    def on_event(self, event: RunEvent) -> None:
        if not self._started:
            self._started = True
            task = asyncio.current_task()
            if task is not None:
                task.cancel()
        self._recorder.on_event(event)


@workflow.defn(name=WORKFLOW_NAME)
class RunWorkflow:
    """One run (workflow id = run id): the loop to its end, waiting for people as often as it defers."""

    def __init__(self) -> None:
        self._inbox: list[CallDecision] = []
        self._model: str | None = None
        self._recorder: WorkflowRecorder | None = None
        self._prices = ReplyPrices()
        self._waiting_for_people = False

    @workflow.signal(name=DECIDE_SIGNAL)
    def decide(self, decisions: Decisions) -> None:
        """People's decisions; buffered in the history, so they count even if no worker is running."""
        self._inbox.extend(decisions.decisions)
        if decisions.model_id:
            self._model = decisions.model_id

    @workflow.query(name=STATUS_QUERY)
    def status(self) -> WorkflowStatus:
        recorder = self._recorder
        if recorder is None:
            return WorkflowStatus(recorded_seq=-1)
        return WorkflowStatus(
            recorded_seq=recorder.recorded_seq, waiting=tuple(recorder.waiting), finished=recorder.finished
        )

    @workflow.run
    async def run(self, spec: RunSpec) -> RunResult:
        # Runs started before decision 274 keep their run-log writes as they were (their histories
        # replay); since then a model request carries the events not yet recorded.
        rides_along = workflow.patched(EVENTS_RIDE_ALONG)
        prepared = await workflow.execute_activity(
            "quorum.prepare", spec, result_type=Prepared, start_to_close_timeout=MODEL, retry_policy=RETRY
        )
        recorder = self._recorder = WorkflowRecorder(spec, rides_along=rides_along)
        facts: dict[str, CallFacts] = {}
        self._prices = ReplyPrices()
        # Responses arrive whole from the activity. No compaction here (yet): the model activity
        # rebuilds the conversation from the run log, which a compacted workflow session cannot change.
        params = spec.params.model_copy(update={"stream": False, "compact": "off"})
        request = RunRequest(
            task=spec.task,
            model_id=spec.model_id,
            system_prompt=prepared.system_prompt,
            params=params,
            run_id=spec.run_id,
        )
        try:
            result = await self._agent(spec, prepared, recorder, facts).execute(request)
            while result.stop_reason == RunStopReason.AWAITING_APPROVAL:
                result = await self._after_people(spec, prepared, recorder, facts, request, result)
        except asyncio.CancelledError:
            # A cancel request (``POST /v1/runs/{id}/cancel``, ``temporal workflow cancel``): the run
            # records its end as a local run does, then the workflow ends cancelled.
            if self._waiting_for_people:
                await self._cancel_waiting(spec, prepared, recorder, facts, request)
            await recorder.drain()
            recorder.finished = True
            raise
        await recorder.drain()
        recorder.finished = True
        return result

    async def _after_people(
        self,
        spec: RunSpec,
        prepared: Prepared,
        recorder: WorkflowRecorder,
        facts: dict[str, CallFacts],
        request: RunRequest,
        waited: RunResult,
    ) -> RunResult:
        """Wait for people's decisions (or the approval timeout), claim them, and continue the run.

        Returns ``waited`` (still awaiting approval) when the claim was refused: the run waits again.
        """
        self._waiting_for_people = True  # from here a cancel answers the waiting calls
        await recorder.drain()
        waiting = list(recorder.waiting)
        try:
            await workflow.wait_condition(lambda: bool(self._inbox), timeout=timedelta(seconds=spec.approval_timeout))
        except TimeoutError:
            reason = say.no_decision(spec.approval_timeout)
            self._inbox.extend(CallDecision(call_id=c, approved=False, by="quorum", reason=reason) for c in waiting)
        self._waiting_for_people = False
        inbox, self._inbox = self._inbox, []
        claimed = await self._claim(spec, inbox)
        if claimed.turn is None:
            workflow.logger.warning("decisions on run %s not applied: %s", spec.run_id, claimed.refused)
            return waited
        facts.update(claimed.facts)
        agent = self._agent(spec, prepared, recorder, facts)
        if self._model:  # quorum approve --model: the rest of the run on another model
            request = request.model_copy(update={"model_id": self._model})
        return await agent.execute(request.model_copy(update={"resume": claimed.turn}))

    async def _claim(self, spec: RunSpec, decisions: list[CallDecision]) -> Claimed:
        """Claim ``decisions`` in the run log; a decision claimed already by its sender keeps its id."""
        claim_id = str(workflow.uuid4())  # a retried claim is recognised by it, never refused as taken
        decisions = [d if d.decision_id else d.model_copy(update={"decision_id": claim_id}) for d in decisions]
        claimed: Claimed = await workflow.execute_activity(
            "quorum.claim",
            ClaimRequest(run_id=spec.run_id, workspace=spec.workspace, decisions=tuple(decisions)),
            result_type=Claimed,
            start_to_close_timeout=QUICK,
            retry_policy=RETRY,
        )
        return claimed

    async def _cancel_waiting(
        self,
        spec: RunSpec,
        prepared: Prepared,
        recorder: WorkflowRecorder,
        facts: dict[str, CallFacts],
        request: RunRequest,
    ) -> None:
        """A run cancelled while it waits for people: its calls are rejected, then it ends ``cancelled``.

        As a served local run's cancel: the continued run is cancelled at its first event, so the
        model is not asked again and every unfinished call gets its answer.
        """
        cancelled = say.RUN_CANCELLED
        rejected = [CallDecision(call_id=c, approved=False, by="quorum", reason=cancelled) for c in recorder.waiting]
        claimed = await self._claim(spec, rejected) if rejected else Claimed(refused="nothing waits")
        if claimed.turn is None:
            return
        facts.update(claimed.facts)
        agent = self._agent(spec, prepared, recorder, facts, cancel_at_start=True)
        with contextlib.suppress(asyncio.CancelledError):
            await asyncio.ensure_future(agent.execute(request.model_copy(update={"resume": claimed.turn})))

    def _agent(
        self,
        spec: RunSpec,
        prepared: Prepared,
        recorder: WorkflowRecorder,
        facts: dict[str, CallFacts],
        *,
        cancel_at_start: bool = False,
    ) -> RunAgent:
        reviewer = ReviewGate(
            rules=prepared.rules,
            panel=ActivityPanel(spec) if prepared.panel else None,
            human=WaitingHumanStep(spec.hil_mode),
            escalate_on_reject=prepared.escalate_on_reject,
            viewer=FactsViewer(facts),
        )
        return RunAgent(
            gateway=ActivityGateway(spec, recorder, facts, self._prices),
            executor=ActivityExecutor(spec, prepared, facts),
            schema=PreparedSchemas(prepared),
            reviewer=reviewer,
            observer=_CancelAtStart(recorder) if cancel_at_start else recorder,
            clock=workflow.time,
            new_run_id=lambda: spec.run_id,
            prices=self._prices,
        )


__all__ = ["RunWorkflow"]
