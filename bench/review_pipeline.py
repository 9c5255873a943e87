"""Overhead of reviewing one high-risk call (issue 6), with instant in-process reviewer models.

    python bench/review_pipeline.py [--calls 2000]

Measures the pipeline itself — policy-rule matching, opening a session per panel member, the
prompt, reading the structured verdict, counting votes — not model latency. Also shows that the
panel votes in parallel: with members that each take D seconds, one review takes about D, not N×D.
"""

from __future__ import annotations

import argparse
import asyncio
import time
from typing import Any

from quorum.application.ports.reviewer import ReviewContext
from quorum.domain.policy import PolicyRule
from quorum.domain.responses import LlmResponse, StopReason
from quorum.domain.tools import RiskLevel, ToolCall, ToolDefinition
from quorum.infrastructure.plugins.contracts import ReviewerContext
from quorum.infrastructure.review import build_reviewer
from quorum.infrastructure.review.settings import ReviewSettings

VERDICT = LlmResponse(
    content=(ToolCall(native_id="v", name="submit_verdict", arguments={"verdict": "approve", "reason": "ok"}),),
    stop_reason=StopReason.tool_use(),
)


class InstantSession:
    def __init__(self, delay: float) -> None:
        self.delay = delay

    async def request(self, turn: Any) -> LlmResponse:
        if self.delay:
            await asyncio.sleep(self.delay)
        return VERDICT


class InstantGateway:
    def __init__(self, delay: float = 0.0) -> None:
        self.delay = delay

    def session(self, model_id: str, system_prompt: str | None = None, **_: Any) -> InstantSession:
        return InstantSession(self.delay)


def pipeline(panel: int, rules: int, delay: float = 0.0) -> Any:
    settings = ReviewSettings(
        reviewers=[f"fake:m{i}" for i in range(panel)],
        rules=[PolicyRule(decision="deny", tool=f"t{i}_*", match={"path": f"s{i}/**"}) for i in range(rules)],
    )
    return build_reviewer(ReviewerContext(settings=settings, gateway=InstantGateway(delay)))  # type: ignore[arg-type]


CALL = ToolCall(native_id="c", name="write_file", arguments={"path": "src/app.py", "content": "x" * 2000})
CONTEXT = ReviewContext(
    run_id="r",
    task="edit the app",
    tool=ToolDefinition(name="write_file", risk=RiskLevel.HIGH),
    risk=RiskLevel.HIGH,
    risk_reason="write",
    assistant_text="I'll edit it.",
)


async def per_review(reviewer: Any, calls: int) -> float:
    start = time.perf_counter()
    for _ in range(calls):
        decision = await reviewer.review(CALL, CONTEXT)
        assert decision.approved
    return (time.perf_counter() - start) / calls * 1e6


async def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    for panel, rules in ((1, 0), (3, 0), (3, 20), (7, 20)):
        micros = await per_review(pipeline(panel, rules), args.calls)
        print(f"panel {panel}, {rules:2d} rules: {micros:7.1f} µs per review")
    delay = 0.05
    for panel in (1, 5):
        start = time.perf_counter()
        await pipeline(panel, 0, delay).review(CALL, CONTEXT)
        took = time.perf_counter() - start
        print(f"panel {panel}, each member {delay * 1000:.0f} ms: one review took {took * 1000:.0f} ms")


if __name__ == "__main__":
    asyncio.run(main())
