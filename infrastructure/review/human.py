"""The human step: ask a person (or decide by ``hil_mode``), remembering "always approve" scopes."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from quorum.application.ports.reviewer import ReviewContext
from quorum.application.run_context import report_vote
from quorum.domain.review import ReviewDecision, Verdict, Vote, milliseconds
from quorum.domain.tools import ToolCall
from quorum.infrastructure.review.scope import ApprovalScope, scope_for
from quorum.infrastructure.tools.workspace import Workspace

HilMode = Literal["interactive", "auto_approve", "auto_reject", "defer"]


@dataclass(frozen=True)
class HumanRequest:
    """What the person is shown: the call, why they are asked, and the panel's votes so far.

    ``always`` is the scope an "always" answer would approve for the rest of the run; None means
    the prompt must not offer "always" for this call.
    """

    call: ToolCall
    context: ReviewContext
    why: str
    votes: tuple[Vote, ...] = ()
    always: ApprovalScope | None = None


@dataclass(frozen=True)
class HumanAnswer:
    """The person's answer.

    ``always`` approves this call and every later call inside the request's ``always`` scope that
    reaches the human step during this run. Without a scope it approves this call only.
    """

    choice: Literal["approve", "reject", "always"]
    reason: str = ""


class HumanPrompt(Protocol):
    """Asks a person about one call (the terminal adapter is ``TerminalPrompt``)."""

    async def ask(self, request: HumanRequest) -> HumanAnswer:
        """The person's answer.

        Must reject — never wait forever — when nobody can answer (input closed); must be
        cancellable.
        """
        ...


def decision_without_asking(mode: str, why: str, votes: Sequence[Vote] = ()) -> ReviewDecision | None:
    """What the human step decides under ``hil_mode = mode`` without asking anyone, or None (ask).

    ``auto_approve``/``auto_reject`` decide; ``defer`` leaves the call for a person to decide later
    (a deferred rejection: never an approval). ``why`` says why the call reached the human step.
    """
    earlier = tuple(votes)
    if mode == "auto_approve":
        return ReviewDecision(approved=True, decided_by="auto", votes=earlier, reason=f"auto-approved ({why})")
    if mode == "auto_reject":
        return ReviewDecision(approved=False, decided_by="auto", votes=earlier, reason=f"auto-rejected ({why})")
    if mode == "defer":
        return ReviewDecision(
            approved=False, decided_by="human", votes=earlier, deferred=True, reason=f"a human must decide ({why})"
        )
    return None


class HumanReviewer:
    """Decides calls that reach the human step.

    - ``auto_approve`` (``hil_mode``, or ``--yes`` for one run) approves, ``decided_by="auto"``.
    - ``auto_reject`` rejects, ``decided_by="auto"``.
    - ``defer`` decides nothing: the outcome is ``deferred`` (never approved), so the loop leaves
      the call waiting for ``quorum approve``/``reject`` and the run ends ``awaiting_approval``.
    - ``interactive`` asks ``prompt``; without one (no terminal, or ``--json``) it rejects at
      once, ``decided_by="auto"``, saying why — it never hangs.

    An "always" answer approves, without asking, later calls inside that call's ``ApprovalScope``
    (a command prefix, a tool in one directory, or a tool; see ``scope``) for the rest of this
    reviewer's life (one run); it only skips the human step, never policy rules or the panel.
    The person's answer is appended to the decision's votes as reviewer ``human``, its reason
    naming the scope, and reported (``report_vote``) as soon as it is given. Automatic decisions
    (``hil_mode``, no prompt, a remembered scope) cast no vote.

    Args:
        mode: the ``hil_mode``.
        prompt: asks the person; None when nobody can be asked.
        workspace: where file paths are resolved to draw and match directory scopes; without
            one, "always" is not offered for file tools.
        clock: measures the person's latency.
        always: scopes approved earlier in the run (a deferred run continued after "always").
    """

    def __init__(
        self,
        mode: HilMode,
        prompt: HumanPrompt | None = None,
        *,
        workspace: Workspace | None = None,
        clock: Callable[[], float] = time.perf_counter,
        always: Sequence[ApprovalScope] = (),
    ) -> None:
        self.mode: HilMode = mode
        self._prompt = prompt
        self._workspace = workspace
        self._clock = clock
        self._always: list[ApprovalScope] = list(always)
        self._lock = asyncio.Lock()  # one question on the terminal at a time

    @property
    def always_approved(self) -> tuple[ApprovalScope, ...]:
        """The scopes the person approved for the rest of the run, in the order given."""
        return tuple(self._always)

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        """The ``ActionReviewer`` form: the human step with no earlier votes."""
        return await self.decide(call, context, why="no reviewer models are configured")

    async def decide(
        self, call: ToolCall, context: ReviewContext, *, why: str, votes: Sequence[Vote] = ()
    ) -> ReviewDecision:
        """Decide ``call``, which reached the human step because of ``why`` after ``votes``."""
        earlier = tuple(votes)
        covered = self._covered(call, earlier)  # first: a deferred run continued after "always" honours it
        if covered is not None:
            return covered
        unasked = decision_without_asking(self.mode, why, earlier)
        if unasked is not None:
            return unasked
        if self._prompt is None:
            return ReviewDecision(
                approved=False,
                decided_by="auto",
                votes=earlier,
                reason=(
                    f"a human must decide ({why}), but none can be asked here (no terminal, or --json); "
                    "rejected. Use --yes or [review] hil_mode to decide without asking"
                ),
            )
        async with self._lock:
            covered = self._covered(call, earlier)  # an answer given while this call waited may cover it
            if covered is not None:
                return covered
            scope = scope_for(call, self._workspace)
            request = HumanRequest(call=call, context=context, why=why, votes=earlier, always=scope)
            started = self._clock()
            answer = await self._prompt.ask(request)
            latency_ms = milliseconds(self._clock() - started)
            approved = answer.choice in ("approve", "always")
            remembered = scope if answer.choice == "always" else None
            if remembered is not None:
                self._always.append(remembered)
        reason = _reason(answer.reason.strip(), approved, remembered)
        vote = Vote(
            reviewer="human",
            verdict=Verdict.APPROVE if approved else Verdict.REJECT,
            reason=reason,
            latency_ms=latency_ms,
        )
        report_vote(vote)
        return ReviewDecision(approved=approved, decided_by="human", votes=(*earlier, vote), reason=reason)

    def _covered(self, call: ToolCall, earlier: tuple[Vote, ...]) -> ReviewDecision | None:
        """The approval of a call inside a remembered scope, or None."""
        scope = next((scope for scope in self._always if scope.covers(call, self._workspace)), None)
        if scope is None:
            return None
        return ReviewDecision(
            approved=True,
            decided_by="human",
            votes=earlier,
            reason=f"approved by the user for the rest of this run: always approve {scope.label}",
        )


def _reason(given: str, approved: bool, remembered: ApprovalScope | None) -> str:
    """The person's reason, else a default; an "always" answer always states its scope."""
    if not approved:
        return given or "rejected by the user"
    base = given or "approved by the user"
    if remembered is None:
        return base
    return f"{base}; always approve {remembered.label} for the rest of this run"
