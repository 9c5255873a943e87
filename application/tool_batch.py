"""Execution of one turn's tool calls: checks, risk, parallel low-risk runs, reviewed high-risk runs."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from quorum.application import model_wording as say
from quorum.application.argument_validation import ArgumentValidator, shown_arguments
from quorum.application.call_ids import on_the_wire
from quorum.application.hooks import HookVerdict, RunHooks
from quorum.application.loop_guard import RepeatGuard
from quorum.application.ports.observer import RunObserver
from quorum.application.ports.reviewer import CallReviewer, ReviewContext
from quorum.application.ports.tool_executor import ToolExecutor, precheck_of
from quorum.application.review_gate import rule_decision, screen_call
from quorum.application.run_context import CallActivity, current_call
from quorum.application.succeeded_calls import note_success, succeeded_calls
from quorum.domain.events import ApprovalRequested, ReviewEvent, ToolCallEvent, ToolOutcome, ToolResultEvent
from quorum.domain.policy import PolicyRule
from quorum.domain.responses import Usage
from quorum.domain.review import ReviewDecision
from quorum.domain.secrets import Redactor
from quorum.domain.tools import (
    Clearance,
    ImagePart,
    RiskAssessment,
    RiskLevel,
    ToolCall,
    ToolDefinition,
    ToolResult,
    ToolSpec,
)


@dataclass
class _Planned:
    index: int
    call: ToolCall
    tool: ToolDefinition
    risk: RiskAssessment
    rule: PolicyRule | None = None
    """The policy rule that screened the call (deny: it never runs; ask: it is reviewed)."""
    approval: ReviewDecision | None = None
    """A ``pre_tool_use`` hook's ``allow``: the call is approved as by a policy ``allow`` rule."""


@dataclass(frozen=True)
class Unrun:
    """How a call that does not run is answered: what the model reads, and what its event says.

    ``output`` is the result the model reads (``model_wording``); ``outcome`` and ``problem`` go
    to the ``tool_result`` event, so renderers say why from fields, never from ``output``.
    """

    output: str
    outcome: ToolOutcome = "error"
    problem: str | None = None

    @classmethod
    def stopping(cls, why: str) -> Unrun:
        """A call the loop leaves unexecuted because the run stops (``why``: the stop's detail)."""
        return cls(say.not_executed(why), "not_run", why)

    @classmethod
    def cancelled(cls, why: str) -> Unrun:
        """A call cut off by the run's timeout or cancellation."""
        return cls(say.cancelled(why))

    @classmethod
    def invalid(cls, name: str, problem: str) -> Unrun:
        """A call whose arguments are wrong (``problem``), refused before any review."""
        return cls(say.not_executed_because(name, problem), "invalid_arguments", problem)

    @classmethod
    def unknown_tool(cls, name: str, offered: ToolSpec) -> Unrun:
        """A call to a tool that is not offered: why, when a source withholds it; else the tools there are."""
        why = offered.why_withheld(name)
        said = say.withheld_tool(name, why) if why is not None else say.unknown_tool(name, offered.names())
        return cls(said, "invalid_arguments", said)


@dataclass
class TurnCalls:
    """The calls of one turn and the results gathered so far (read when a run is cut short)."""

    calls: Sequence[ToolCall]
    results: dict[int, ToolResult] = field(default_factory=dict)
    announced: set[int] = field(default_factory=set)
    """Indexes whose ``tool_call`` event was emitted."""
    waiting: dict[int, ApprovalRequested] = field(default_factory=dict)
    """Indexes of calls deferred to a person (``hil_mode = "defer"``): they have no result."""
    looping: str | None = None
    """Set when the loop guard ended the run here (``loop_detected``): why, in words."""
    wire: dict[str, str] = field(default_factory=dict)
    """Internal call id → the model's own, for the calls renamed because the model reused an id."""

    def missing(self) -> list[int]:
        """Indexes of calls that have no result yet."""
        return [i for i in range(len(self.calls)) if i not in self.results]

    def ordered(self) -> list[ToolResult]:
        """Results in the model's emission order; every call must have one."""
        return [self.results[i] for i in range(len(self.calls))]

    def for_session(self) -> list[ToolResult]:
        """``ordered()`` answering the ids the model gave (``call_ids``): what the session is sent."""
        return on_the_wire(self.ordered(), self.wire)

    def announce(self, index: int, risk: RiskLevel, observer: RunObserver) -> None:
        """Emit the ``tool_call`` event of call ``index``."""
        call = self.calls[index]
        arguments = shown_arguments(call)  # a placeholder for arguments too deep or large to carry
        observer.on_event(ToolCallEvent.of(call, risk, arguments))
        self.announced.add(index)

    def answer(
        self,
        index: int,
        output: str,
        observer: RunObserver,
        *,
        is_error: bool,
        is_rejected: bool = False,
        duration: float = 0.0,
        redacted: bool = False,
        images: tuple[ImagePart, ...] = (),
        outcome: ToolOutcome | None = None,
        problem: str | None = None,
    ) -> None:
        """Record the result of call ``index`` and emit its ``tool_result`` event (which has no images).

        ``outcome`` defaults to what ``is_error`` and ``is_rejected`` say (ok, error, rejected);
        ``problem`` is why a call did not run, for the event (``ToolResultEvent.problem``).
        """
        call = self.calls[index]
        result = ToolResult(
            call_id=call.native_id,
            name=call.name,
            output=output,
            is_error=is_error,
            is_rejected=is_rejected,
            duration=duration,
            redacted=redacted,
            images=images,
        )
        self.results[index] = result
        observer.on_event(ToolResultEvent.of(result, outcome, problem))

    def refuse(self, index: int, unrun: Unrun, observer: RunObserver) -> None:
        """Answer call ``index``, which does not run, as ``unrun`` says."""
        self.answer(index, unrun.output, observer, is_error=True, outcome=unrun.outcome, problem=unrun.problem)


@dataclass(frozen=True)
class ReviewBrief:
    """What reviewers are told about the response whose calls a batch runs, beside each call's tool and risk.

    Attributes:
        run_id: the run.
        task: the run's task.
        assistant_text: the text of the response that made the calls.
        plan: plan mode's approved plan as numbered text (execution phase); empty otherwise.
    """

    run_id: str
    task: str
    assistant_text: str
    plan: str = ""

    def context(self, tool: ToolDefinition, risk: RiskAssessment) -> ReviewContext:
        """The review context of one call to ``tool`` assessed ``risk``."""
        return ReviewContext(
            run_id=self.run_id,
            task=self.task,
            tool=tool,
            risk=risk.level,
            risk_reason=risk.reason,
            assistant_text=self.assistant_text,
            plan=self.plan,
            confined=risk.confined,
        )


@dataclass
class RejectionCounter:
    """Consecutive rejections across the run; an approval resets it."""

    limit: int
    count: int = 0

    @property
    def exhausted(self) -> bool:
        return self.count >= self.limit


@dataclass
class ReviewerSpending:
    """Tokens the reviewer models spent during the run: (model id, usage) per vote that spent any."""

    votes: list[tuple[str, Usage]] = field(default_factory=list)

    def add(self, decision: ReviewDecision) -> None:
        """Count the tokens of ``decision``'s votes (plugin reviewers and people spend none)."""
        self.votes.extend((v.model, v.usage) for v in decision.votes if v.model is not None and v.usage.total_tokens)

    @property
    def total(self) -> Usage:
        return sum((usage for _, usage in self.votes), Usage())


class ToolBatch:
    """Runs the calls of one model response under the loop rules.

    Unknown tools, malformed or schema-violating arguments become error results without execution
    or review. Policy rules screen every other call first: one a ``deny`` rule matches is rejected
    without running (``decided_by="policy"``), low-risk or not; a low-risk one an ``ask`` rule
    matches is handled as high-risk (reviewed, run alone). Low-risk calls run concurrently (at
    most ``max_parallel``) with clearance ``UNREVIEWED``; high-risk calls run after them, one at a
    time in emission order, each only after the reviewer approved it (clearance ``APPROVED``), so
    a high-risk call never overlaps another call. Known secret values in outputs are replaced by
    ``redactor`` before anything sees them. Each result is emitted as it is produced and stored in
    ``turn.results`` under the call's emission index. The reviewer models' tokens are added to
    ``spending``. A call ``guard`` finds repeating the calls before it exactly is answered
    without review or execution. ``shown`` are the schemas requests offer when they differ from
    ``schemas`` (the lean tool profile); calls are always checked against ``schemas``.

    ``hooks`` (the run's ``[[hooks.pre_tool_use]]``/``post_tool_use``): after the ``deny`` rules,
    every call a ``pre_tool_use`` hook names, low-risk ones included, is put to its hooks before
    anything runs: a ``deny`` (or a failed hook) rejects it (``decided_by="hook"``), an ``allow``
    approves it as an ``allow`` rule would (a policy ``ask`` rule still asks), an ``ask`` sends it
    to the usual review. ``post_tool_use`` hooks' feedback is added to the result of a call that ran.

    A review that defers (``hil_mode = "defer"``) leaves its call without a result: the call is
    put in ``turn.waiting`` and announced with an ``approval_requested`` event, and the other
    calls go on. ``settle`` applies people's decisions to such calls later.
    """

    def __init__(
        self,
        *,
        executor: ToolExecutor,
        reviewer: CallReviewer,
        observer: RunObserver,
        validator: ArgumentValidator,
        offered: ToolSpec,
        schemas: dict[str, dict[str, Any]],
        max_parallel: int,
        tool_timeout: float,
        allow_high_risk: bool,
        redactor: Redactor | None = None,
        clock: Callable[[], float] = time.perf_counter,
        spending: ReviewerSpending | None = None,
        guard: RepeatGuard | None = None,
        shown: dict[str, dict[str, Any]] | None = None,
        hooks: RunHooks | None = None,
    ) -> None:
        self._executor = executor
        self._reviewer = reviewer
        self._observer = observer
        self._validator = validator
        self._offered = offered
        self._schemas = schemas
        self._semaphore = asyncio.Semaphore(max_parallel)
        self._tool_timeout = tool_timeout
        self._allow_high_risk = allow_high_risk
        self._redactor = redactor or Redactor()
        self._clock = clock
        self._spending = spending if spending is not None else ReviewerSpending()
        self._guard = guard
        self._shown = shown if shown is not None else schemas
        self._hooks = hooks
        # Checked once, without isinstance: against a runtime-checkable protocol it costs tens of µs.
        self._prechecks = precheck_of(executor)

    @property
    def tools(self) -> list[dict[str, Any]]:
        """The wire schemas of the batch's tools (what a request offers)."""
        return list(self._shown.values())

    async def still_offered(self) -> list[dict[str, Any]]:
        """The wire schemas of the batch's tools the executor still lists, listed again now.

        A tool source may withdraw a tool mid-run (an MCP server whose tool changed since it was
        pinned); it is then left out of the next request. Tools are never added mid-run.
        """
        listed = set((await self._executor.list_tools()).names())
        return [schema for name, schema in self._shown.items() if name in listed]

    async def run(self, turn: TurnCalls, *, brief: ReviewBrief, rejections: RejectionCounter) -> None:
        """Fill ``turn.results`` for every call. Cancellation leaves unfinished calls missing."""
        low: list[_Planned] = []
        high: list[_Planned] = []
        if (succeeded := succeeded_calls()) is not None:
            succeeded.next_response()
        repeated = self._guard.repeats(turn.calls) if self._guard else {}
        if repeated and self._guard is not None and self._guard.exhausted:
            self._stop_looping(turn, self._guard)
            return
        for index, call in enumerate(turn.calls):
            planned, invalid = self._plan(index, call)
            turn.announce(index, planned.risk.level if planned else RiskLevel.HIGH, self._observer)
            if index in repeated:
                turn.answer(index, self._repeat_words(call, repeated[index]), self._observer, is_error=True)
            elif planned is None:
                turn.refuse(index, invalid or Unrun(""), self._observer)
            elif planned.rule is not None and planned.rule.decision == "deny":
                self._reject(turn, planned, rule_decision(planned.rule), rejections)
            elif (refused := self._precheck(planned.call)) is not None:
                turn.refuse(index, refused, self._observer)
            elif planned.risk.level is RiskLevel.LOW:
                low.append(planned)
            else:
                high.append(planned)
        if self._hooks is not None:
            low, high = await self._ask_hooks(self._hooks, turn, low, high, rejections)

        if low:
            async with asyncio.TaskGroup() as group:
                for planned in low:
                    group.create_task(self._execute_low(turn, planned))

        for position, planned in enumerate(high):
            if rejections.exhausted:
                for skipped in high[position:]:
                    turn.refuse(
                        skipped.index, Unrun.stopping(say.rejections_exhausted(rejections.limit)), self._observer
                    )
                break
            await self._execute_high(turn, planned, brief.context(planned.tool, planned.risk), rejections)
        self._remember(turn, repeated)

    async def _ask_hooks(
        self, hooks: RunHooks, turn: TurnCalls, low: list[_Planned], high: list[_Planned], rejections: RejectionCounter
    ) -> tuple[list[_Planned], list[_Planned]]:
        """Put the calls the ``pre_tool_use`` hooks name to them (concurrently); the low and high lists after.

        A denied call is rejected here; an allowed one carries its approval; a low-risk one a
        hook asks about is reviewed, as high-risk calls are (emission order kept).
        """
        named = [planned for planned in (*low, *high) if hooks.names("pre_tool_use", planned.call.name)]
        if not named:
            return low, high
        verdicts = await asyncio.gather(*(self._before_call(hooks, planned.call) for planned in named))
        for planned, verdict in zip(named, verdicts, strict=True):
            if verdict is None:
                continue
            if verdict.permission == "deny":
                self._reject(turn, planned, verdict.decision, rejections)
            elif verdict.permission == "allow":
                planned.approval = verdict.decision
            elif planned.risk.level is RiskLevel.LOW:
                why = f"the hook `{verdict.decision.hook}` says ask; {planned.risk.reason}"
                planned.risk = RiskAssessment(level=RiskLevel.HIGH, reason=why)
        left = [planned for planned in (*low, *high) if planned.index not in turn.results]
        return (
            [planned for planned in left if planned.risk.level is RiskLevel.LOW],
            sorted((planned for planned in left if planned.risk.level is not RiskLevel.LOW), key=lambda p: p.index),
        )

    async def _before_call(self, hooks: RunHooks, call: ToolCall) -> HookVerdict | None:
        token = current_call.set(CallActivity(call.native_id, self._observer.on_event))
        try:
            return await hooks.before_call(call)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the port says never raise; if it does, fail closed
            failed = ReviewDecision(approved=False, decided_by="hook", reason=say.review_failed("the hooks", error))
            return HookVerdict("deny", failed)
        finally:
            current_call.reset(token)

    def _repeat_words(self, call: ToolCall, how: str) -> str:
        assert self._guard is not None
        if how == "row":
            return say.repeated_call(call.name, self._guard.limit)
        return say.cycled_call(call.name, self._guard.limit, self._guard.warnings_left)

    def _remember(self, turn: TurnCalls, repeated: Mapping[int, str]) -> None:
        """Tell the loop guard what each call that ran (or was refused) gave; deferred calls have nothing yet."""
        if self._guard is None:
            return
        for index, call in enumerate(turn.calls):
            if index not in repeated and index in turn.results:
                self._guard.ran(call, turn.results[index])

    def _stop_looping(self, turn: TurnCalls, guard: RepeatGuard) -> None:
        """The model repeated itself past the guard's warnings: no call of this response runs; the run stops."""
        turn.looping = say.loop_detected(guard.warnings)
        for index, call in enumerate(turn.calls):
            tool = self._offered.get(call.name)
            turn.announce(index, tool.risk if tool is not None else RiskLevel.HIGH, self._observer)
            turn.refuse(index, Unrun.stopping(turn.looping), self._observer)

    async def settle(
        self, turn: TurnCalls, decisions: Mapping[int, ReviewDecision], *, rejections: RejectionCounter
    ) -> None:
        """Apply people's decisions to calls deferred earlier (indexes of ``turn.calls``), in emission order.

        Each call is checked again as if new (tool still offered, arguments valid, policy rules):
        an invalid call gets an error result and a call a ``deny`` rule matches is rejected by
        policy, whatever the person said. An approved call then runs alone with clearance
        ``APPROVED``; a rejected one gets the rejection, with its reason, as its result.
        """
        for index in sorted(decisions):
            decision = decisions[index]
            planned, invalid = self._plan(index, turn.calls[index])
            if planned is None:
                turn.refuse(index, invalid or Unrun(""), self._observer)
            elif planned.rule is not None and planned.rule.decision == "deny":
                self._reject(turn, planned, rule_decision(planned.rule), rejections)
            elif decision.approved and (refused := self._precheck(planned.call)) is not None:
                turn.refuse(index, refused, self._observer)
            elif decision.approved:
                self._observer.on_event(ReviewEvent.of(planned.call.native_id, planned.call.name, decision))
                rejections.count = 0
                await self._execute(turn, planned, Clearance.APPROVED)
            else:
                self._reject(turn, planned, decision, rejections)

    def _precheck(self, call: ToolCall) -> Unrun | None:
        """The executor's own refusal of ``call`` (``CallPrecheck``), asked after the deny rules and before review."""
        if self._prechecks is None:
            return None
        problem = self._prechecks(call)
        if problem is None:
            return None
        problem, _ = self._redactor.redact(problem)  # a refusal may show a file's content
        return Unrun.invalid(call.name, problem)

    def _plan(self, index: int, call: ToolCall) -> tuple[_Planned | None, Unrun | None]:
        tool = self._offered.get(call.name)
        if tool is None:
            return None, Unrun.unknown_tool(call.name, self._offered)
        problem = self._validator.problems(call, self._schemas[tool.name]["input_schema"])
        if problem is not None:
            return None, Unrun.invalid(call.name, problem)
        screening = screen_call(self._reviewer, call, tool, self._executor.assess_risk(call, tool))
        return _Planned(index, call, tool, screening.risk, screening.rule), None

    async def _execute_low(self, turn: TurnCalls, planned: _Planned) -> None:
        if planned.approval is not None:  # a hook allowed it: recorded as its review
            self._observer.on_event(ReviewEvent.of(planned.call.native_id, planned.call.name, planned.approval))
        async with self._semaphore:
            await self._execute(turn, planned, Clearance.UNREVIEWED)

    async def _execute_high(
        self, turn: TurnCalls, planned: _Planned, context: ReviewContext, rejections: RejectionCounter
    ) -> None:
        call = planned.call
        if not self._allow_high_risk:
            decision = ReviewDecision(
                approved=False,
                decided_by="policy",
                reason="high-risk calls are not allowed in read-only (ask) mode",
            )
        elif planned.approval is not None and (planned.rule is None or planned.rule.decision != "ask"):
            decision = planned.approval  # a hook's allow, as an allow rule's; an ask rule still asks
        else:
            decision = await self._review(call, context)
            self._spending.add(decision)
        if decision.deferred:
            self._defer(turn, planned, decision)
            return
        if decision.approved:
            self._observer.on_event(ReviewEvent.of(call.native_id, call.name, decision))
            rejections.count = 0
            await self._execute(turn, planned, Clearance.APPROVED)
            return
        self._reject(turn, planned, decision, rejections)

    def _defer(self, turn: TurnCalls, planned: _Planned, decision: ReviewDecision) -> None:
        """Leave the call to a person: no result, an ``approval_requested`` event with the review so far."""
        call = planned.call
        request = ApprovalRequested(
            call_id=call.native_id,
            name=call.name,
            arguments=shown_arguments(call),
            risk=planned.risk.level,
            reason=decision.reason,
            votes=list(decision.votes),
            rule=decision.rule,
        )
        turn.waiting[planned.index] = request
        self._observer.on_event(request)

    def _reject(
        self, turn: TurnCalls, planned: _Planned, decision: ReviewDecision, rejections: RejectionCounter
    ) -> None:
        """Emit the rejecting review and the call's rejected result; count it."""
        call = planned.call
        self._observer.on_event(ReviewEvent.of(call.native_id, call.name, decision))
        rejections.count += 1
        turn.answer(planned.index, say.rejected(decision), self._observer, is_error=True, is_rejected=True)

    async def _review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        token = current_call.set(CallActivity(call.native_id, self._observer.on_event))
        try:
            return await self._reviewer.review(call, context)
        except asyncio.CancelledError:
            raise
        except Exception as error:  # a broken reviewer fails closed, never open
            return ReviewDecision(approved=False, decided_by="auto", reason=say.review_failed("reviewer", error))
        finally:
            current_call.reset(token)

    async def _execute(self, turn: TurnCalls, planned: _Planned, clearance: Clearance) -> None:
        call = planned.call
        started = self._clock()
        is_error = True
        timed_out = False
        images: tuple[ImagePart, ...] = ()
        token = current_call.set(CallActivity(call.native_id, self._observer.on_event))
        try:
            async with asyncio.timeout(self._tool_timeout) as deadline:
                outcome = await self._executor.execute(call, clearance=clearance)
            output, is_error, images = outcome.output, outcome.is_error, outcome.images
            if not is_error:
                note_success(call)  # a later call of this turn may depend on it (edit after read)
        except TimeoutError:
            if not deadline.expired():
                output = "TimeoutError: the tool timed out"
            else:
                output, timed_out = say.tool_timed_out(call.name, self._tool_timeout), True
        except asyncio.CancelledError:
            raise
        except Exception as error:  # the model sees the failure; the run goes on
            output = f"{type(error).__name__}: {error}"
        finally:
            current_call.reset(token)
        duration = self._clock() - started
        if self._hooks is not None and self._hooks.names("post_tool_use", call.name):
            added = await self._hooks.after_call(call, output, is_error=is_error)  # its payload is redacted
            output = f"{output}\n\n{added}" if added else output
        output, redacted = self._redactor.redact(output)
        turn.answer(
            planned.index,
            output,
            self._observer,
            is_error=is_error,
            duration=duration,
            redacted=redacted,
            images=images,
            outcome="timed_out" if timed_out else None,
        )
