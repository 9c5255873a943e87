"""The human step: ask a person (or decide by ``hil_mode``), remembering always-approved tools."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Literal, Protocol

from quorum.application.ports.reviewer import ReviewContext
from quorum.domain.review import ReviewDecision, Verdict, Vote
from quorum.domain.tools import ToolCall

HilMode = Literal["interactive", "auto_approve", "auto_reject"]


@dataclass(frozen=True)
class HumanRequest:
    """What the person is shown: the call, why they are asked, and the panel's votes so far."""

    call: ToolCall
    context: ReviewContext
    why: str
    votes: tuple[Vote, ...] = ()


@dataclass(frozen=True)
class HumanAnswer:
    """The person's answer.

    ``always`` approves this call and every later call of the same tool that reaches the human
    step during this run.
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


class HumanReviewer:
    """Decides calls that reach the human step.

    - ``auto_approve`` (``hil_mode``, or ``--yes`` for one run) approves, ``decided_by="auto"``.
    - ``auto_reject`` rejects, ``decided_by="auto"``.
    - ``interactive`` asks ``prompt``; without one (no terminal, or ``--json``) it rejects at
      once, ``decided_by="auto"``, saying why — it never hangs.

    A tool the person answered "always" for is approved without asking for the rest of this
    reviewer's life (one run); it only skips the human step, never policy rules or the panel.
    The person's answer is appended to the decision's votes as reviewer ``human``.
    """

    def __init__(
        self,
        mode: HilMode,
        prompt: HumanPrompt | None = None,
        *,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.mode: HilMode = mode
        self._prompt = prompt
        self._clock = clock
        self._always: set[str] = set()
        self._lock = asyncio.Lock()  # one question on the terminal at a time

    @property
    def always_approved(self) -> frozenset[str]:
        """Tools the person approved for the rest of the run."""
        return frozenset(self._always)

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        """The ``ActionReviewer`` form: the human step with no earlier votes."""
        return await self.decide(call, context, why="no reviewer models are configured")

    async def decide(
        self, call: ToolCall, context: ReviewContext, *, why: str, votes: Sequence[Vote] = ()
    ) -> ReviewDecision:
        """Decide ``call``, which reached the human step because of ``why`` after ``votes``."""
        earlier = tuple(votes)
        if self.mode == "auto_approve":
            return ReviewDecision(approved=True, decided_by="auto", votes=earlier, reason=f"auto-approved ({why})")
        if self.mode == "auto_reject":
            return ReviewDecision(approved=False, decided_by="auto", votes=earlier, reason=f"auto-rejected ({why})")
        if call.name in self._always:
            return ReviewDecision(
                approved=True,
                decided_by="human",
                votes=earlier,
                reason=f"{call.name} was approved for the rest of this run",
            )
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
            started = self._clock()
            answer = await self._prompt.ask(HumanRequest(call=call, context=context, why=why, votes=earlier))
            latency = round(self._clock() - started, 6)
        approved = answer.choice in ("approve", "always")
        if answer.choice == "always":
            self._always.add(call.name)
        reason = answer.reason.strip() or (
            "approved by the user"
            + (f"; {call.name} is approved for the rest of this run" if answer.choice == "always" else "")
            if approved
            else "rejected by the user"
        )
        vote = Vote(
            reviewer="human",
            verdict=Verdict.APPROVE if approved else Verdict.REJECT,
            reason=reason,
            latency=latency,
        )
        return ReviewDecision(approved=approved, decided_by="human", votes=(*earlier, vote), reason=reason)
