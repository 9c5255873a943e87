"""QuorumReviewer and ModelVoter over in-process sessions: what reviewers see, parallel voting,
deadlines, and how every kind of non-answer becomes an error vote."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass, field
from typing import Any

from quorum.application.ports.llm import TurnInput
from quorum.domain.responses import LlmResponse
from quorum.domain.review import QuorumRule, Verdict
from quorum.infrastructure.review.prompts import read_verdict, reviewer_system_prompt
from quorum.infrastructure.review.quorum import QuorumReviewer
from quorum.infrastructure.review.voters import ModelVoter
from tests.integration.review.conftest import context_for, high_call
from tests.support.reviewer_sessions import BehaviourGateway, verdict_response


@dataclass
class BarrierGateway:
    """Every session waits until all panel members are asking at once, then approves."""

    barrier: asyncio.Barrier
    prompts: list[tuple[str | None, str]] = field(default_factory=list)

    def session(self, model_id: str, system_prompt: str | None = None, **_: Any) -> Any:
        gateway = self

        class Session:
            async def request(self, turn: TurnInput) -> LlmResponse:
                gateway.prompts.append((system_prompt, turn.text))
                async with asyncio.timeout(10):  # a serial panel would never fill the barrier
                    await gateway.barrier.wait()
                return verdict_response("approve", f"{model_id} agrees")

        return Session()


async def test_the_panel_votes_in_parallel_and_sees_the_whole_call() -> None:
    gateway = BarrierGateway(asyncio.Barrier(3))
    voters = [ModelVoter(gateway, f"fake:m{i}") for i in range(3)]  # type: ignore[arg-type]
    call = high_call(command="rm -rf build")
    decision = await QuorumReviewer(voters, rule=QuorumRule.parse("unanimous")).review(call, context_for(call))
    assert decision.approved and [v.reason for v in decision.votes] == [f"fake:m{i} agrees" for i in range(3)]
    system, prompt = gateway.prompts[0]
    nonce = prompt.split("<call-", 1)[1].split(">", 1)[0]
    assert system == reviewer_system_prompt(nonce) and f"<task-{nonce}>" in system
    for needle in (
        "tool: run_command",
        "description: runs a shell command",
        "risk: high — the command may modify files",
        '"command": "rm -rf build"',
        f"<task-{nonce}>\nclean the build directory\n</task-{nonce}>",
        f"<context-{nonce}>\nI'll remove the build directory.\n</context-{nonce}>",
    ):
        assert needle in prompt
    assert len({p.split("<call-", 1)[1][:16] for _, p in gateway.prompts}) == 3  # a nonce per session


async def test_a_hung_reviewer_is_an_error_vote_after_its_deadline() -> None:
    gateway = BehaviourGateway({"fake:slow": ["timeout"], "fake:a": ["approve"], "fake:b": ["approve"]})
    voters = [ModelVoter(gateway, m) for m in ("fake:slow", "fake:a", "fake:b")]  # type: ignore[arg-type]
    reviewer = QuorumReviewer(voters, rule=QuorumRule.parse("unanimous"), vote_timeout=0.05)
    call = high_call()
    decision = await reviewer.review(call, context_for(call))
    slow = decision.votes[0]
    assert (slow.verdict, slow.reason) == (Verdict.ERROR, "no answer within 0.05 s")
    assert slow.latency > 0
    assert decision.approved and decision.reason == "APPROVED 2/2 unanimous"


async def test_a_reviewer_is_reminded_once_in_the_same_session() -> None:
    gateway = BehaviourGateway({"fake:late": ["late_approve"], "fake:mute": ["no_verdict"]})
    voters = [ModelVoter(gateway, "fake:late"), ModelVoter(gateway, "fake:mute")]  # type: ignore[arg-type]
    call = high_call()
    decision = await QuorumReviewer(voters, rule=QuorumRule.parse("majority"), min_votes=1).review(
        call, context_for(call)
    )
    late, mute = gateway.opened
    assert len(late.requests) == 2 and "You did not submit a verdict" in late.requests[1]
    assert len(mute.requests) == 2  # one reminder, not more
    assert [v.verdict for v in decision.votes] == [Verdict.APPROVE, Verdict.ERROR]


def test_read_verdict_accepts_only_well_formed_submissions() -> None:
    from quorum.domain.tools import ToolCall

    def c(name: str = "submit_verdict", **arguments: Any) -> ToolCall:
        return ToolCall(native_id="x", name=name, arguments=arguments)

    assert read_verdict([c(verdict="approve", reason="ok")]) == (Verdict.APPROVE, "ok")
    assert read_verdict([c(verdict="reject")]) == (Verdict.REJECT, "")
    assert read_verdict([c(verdict="reject", reason="a"), c(verdict="reject", reason="b")]) == (
        Verdict.REJECT,
        "a",
    )
    assert "conflicting" in read_verdict([c(verdict="approve"), c(verdict="reject")])  # type: ignore[operator]
    assert "got 'DISAPPROVE'" in read_verdict([c(verdict="DISAPPROVE")])  # type: ignore[operator]
    assert "unexpected fields" in read_verdict([c(verdict="approve", severity="low")])  # type: ignore[operator]
    assert "reason must be a string" in read_verdict([c(verdict="approve", reason=3)])  # type: ignore[operator]
    assert "not a tool you can call" in read_verdict([c("run_command", command="ls")])  # type: ignore[operator]
    assert read_verdict([]) == "you answered without calling a tool"
    bad_json = ToolCall(native_id="x", name="submit_verdict", arguments_error="Expecting value", raw_arguments="{")
    assert "not a JSON object" in read_verdict([bad_json])  # type: ignore[operator]
