"""Votes are run events as they arrive: the real panel (``ReviewGate`` → ``QuorumReviewer`` →
``ModelVoter``) inside a real ``RunAgent`` loop reports each vote while slower reviewers still think."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from quorum.application.execution import RunRequest
from quorum.application.ports.llm import TurnInput
from quorum.application.review_gate import ReviewGate
from quorum.application.run_context import CallActivity, current_call
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.responses import LlmResponse
from quorum.domain.review import QuorumRule, Verdict
from quorum.domain.secrets import Redactor
from quorum.domain.tools import RiskLevel
from quorum.infrastructure.review import HumanAnswer
from quorum.infrastructure.review.human import HumanReviewer
from quorum.infrastructure.review.quorum import QuorumReviewer
from quorum.infrastructure.review.voters import ModelVoter
from tests.fakes import FakeGateway, FakeTools, JsonSchema, ScriptedSession, calls, text
from tests.integration.review.conftest import RecordingPrompt, context_for, high_call
from tests.support.reviewer_sessions import verdict_response


@dataclass
class VotesObserver:
    """Records events; ``seen[reviewer]`` is set when that reviewer's ``vote`` event was observed."""

    events: list[Any] = field(default_factory=list)
    seen: dict[str, asyncio.Event] = field(default_factory=dict)

    def on_event(self, event: Any) -> None:
        self.events.append(event)
        if event.type == "vote":
            self.seen.setdefault(event.reviewer, asyncio.Event()).set()

    def saw(self, reviewer: str) -> asyncio.Event:
        return self.seen.setdefault(reviewer, asyncio.Event())


@dataclass
class ChainGateway:
    """Reviewer sessions that answer only after the previous reviewer's vote event was observed.

    A panel that reported its votes at the end (with the decision) would never release the second
    reviewer: the test then fails on its timeout instead of passing by luck of timing.
    """

    observer: VotesObserver
    verdicts: dict[str, str]
    after: dict[str, str]

    def session(self, model_id: str, system_prompt: str | None = None, **_: Any) -> Any:
        gateway = self

        class Session:
            async def request(self, turn: TurnInput) -> LlmResponse:
                previous = gateway.after.get(model_id)
                if previous is not None:
                    await gateway.observer.saw(previous).wait()
                return verdict_response(gateway.verdicts[model_id], f"{model_id} says {gateway.verdicts[model_id]}")

        return Session()


async def test_each_vote_is_an_event_as_it_arrives_before_the_review() -> None:
    observer = VotesObserver()
    panel = ["fake:m1", "fake:m2", "fake:m3"]
    gateway = ChainGateway(
        observer,
        verdicts={"fake:m1": "approve", "fake:m2": "reject", "fake:m3": "approve"},
        after={"fake:m2": "fake:m1", "fake:m3": "fake:m2"},  # m3 waits for m2's vote, m2 for m1's
    )
    reviewer = ReviewGate(
        panel=QuorumReviewer([ModelVoter(gateway, m) for m in panel], rule=QuorumRule.parse("majority")),  # type: ignore[arg-type]
        human=HumanReviewer("auto_reject"),
    )
    tools = FakeTools()
    tools.add("write", lambda _: asyncio.sleep(0, "written"), risk=RiskLevel.HIGH)
    session = ScriptedSession([calls(("write", {})), text("done")])
    agent = RunAgent(
        gateway=FakeGateway(session),
        executor=tools,
        schema=JsonSchema(),
        reviewer=reviewer,
        observer=observer,
        redactor=Redactor(),
        new_run_id=lambda: "run-1",
    )
    async with asyncio.timeout(10):  # a panel reporting only at the end leaves m2 waiting for ever
        await agent.execute(RunRequest(task="write it", model_id="fake:model"))

    kinds = [e.type for e in observer.events]
    votes = [e for e in observer.events if e.type == "vote"]
    assert [(v.reviewer, v.verdict, v.call_id) for v in votes] == [
        ("fake:m1", Verdict.APPROVE, "c1"),
        ("fake:m2", Verdict.REJECT, "c1"),
        ("fake:m3", Verdict.APPROVE, "c1"),
    ]
    assert votes[1].reason == "fake:m2 says reject" and votes[0].model == "fake:m1"
    assert max(i for i, k in enumerate(kinds) if k == "vote") < kinds.index("review")
    (review,) = [e for e in observer.events if e.type == "review"]
    assert review.approved and [v.reviewer for v in review.votes] == panel


async def test_the_humans_vote_is_reported_and_automatic_decisions_cast_none() -> None:
    reported: list[Any] = []
    call = high_call()
    token = current_call.set(CallActivity("call-1", reported.append))
    try:
        asked = HumanReviewer("interactive", RecordingPrompt([HumanAnswer("reject", "not today")]))
        decision = await asked.decide(call, context_for(call), why="a rule says ask")
        await HumanReviewer("auto_approve").decide(call, context_for(call), why="no panel")
    finally:
        current_call.reset(token)
    assert not decision.approved
    assert [(e.type, e.call_id, e.reviewer, e.verdict, e.reason) for e in reported] == [
        ("vote", "call-1", "human", Verdict.REJECT, "not today")
    ]
