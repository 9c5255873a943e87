"""Reviewer-model sessions that behave as told: approve, reject, fail, hang, or never give a verdict.

``BehaviourGateway`` is an ``LlmGateway`` for reviewer models: each session it opens for model M
takes the next behaviour from M's queue, so the i-th review of a call by M uses ``queues[M][i]``.
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from quorum.application.ports.llm import TurnInput
from quorum.domain.errors import ProviderError
from quorum.domain.responses import LlmResponse, StopReason, TextBlock
from quorum.domain.review import Verdict
from quorum.domain.tools import ToolCall

Behaviour = Literal["approve", "reject", "error", "timeout", "no_verdict", "late_approve", "bad_verdict"]
BEHAVIOURS: tuple[Behaviour, ...] = (
    "approve",
    "reject",
    "error",
    "timeout",
    "no_verdict",
    "late_approve",
    "bad_verdict",
)


def expected_verdict(behaviour: Behaviour) -> Verdict:
    """The vote a behaviour must produce: only a valid submit_verdict call counts."""
    if behaviour in ("approve", "late_approve"):
        return Verdict.APPROVE
    if behaviour == "reject":
        return Verdict.REJECT
    return Verdict.ERROR


def verdict_response(verdict: str, reason: str = "because", call_id: str = "v1") -> LlmResponse:
    block = ToolCall(native_id=call_id, name="submit_verdict", arguments={"verdict": verdict, "reason": reason})
    return LlmResponse(content=(block,), stop_reason=StopReason.tool_use())


@dataclass
class BehaviourSession:
    """One reviewer session; checks it is offered nothing but ``submit_verdict``."""

    behaviour: Behaviour
    system_prompt: str | None = None
    requests: list[str] = field(default_factory=list)

    model: str = "behaviour"

    async def request(self, turn: TurnInput) -> LlmResponse:
        assert turn.tools is not None
        self._check_tools(turn.tools)
        assert all(r.is_error for r in turn.results)
        self.requests.append(turn.note or "" if turn.results else turn.text)
        return await self._answer()

    def _check_tools(self, tools: Sequence[dict[str, Any]]) -> None:
        assert [t["name"] for t in tools] == ["submit_verdict"], "reviewers get no other tools"

    async def _answer(self) -> LlmResponse:
        b = self.behaviour
        if b == "error":
            raise ProviderError("reviewer model unavailable", provider="fake", status_code=503)
        if b == "timeout":
            await asyncio.Event().wait()
        if b in ("approve", "reject"):
            return verdict_response(b, f"I {b} this")
        if b == "late_approve":
            if len(self.requests) == 1:
                return LlmResponse.from_text("Looks fine to me.")
            return verdict_response("approve", "fine after all")
        if b == "bad_verdict":  # copilot-quorum counted "DISAPPROVE" as approval
            return verdict_response("DISAPPROVE", "approve? no")
        return LlmResponse(content=(TextBlock(text="APPROVE. LGTM, looks safe."),))  # no_verdict


@dataclass
class BehaviourGateway:
    queues: dict[str, list[Behaviour]]
    opened: list[BehaviourSession] = field(default_factory=list)
    used: dict[str, list[Behaviour]] = field(default_factory=dict)

    def session(self, model_id: str, system_prompt: str | None = None, *, history: Any = ()) -> BehaviourSession:
        behaviour = self.queues[model_id].pop(0)
        self.used.setdefault(model_id, []).append(behaviour)
        session = BehaviourSession(behaviour, system_prompt)
        self.opened.append(session)
        return session
