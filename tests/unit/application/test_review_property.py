"""Property: across random turns and random reviewer behaviour, review is the only way to execute.

RunAgent runs with fake tools and a scripted main session; the reviewer is the real
``ReviewGate`` built by the infrastructure (policy rules, the real quorum over reviewer sessions
that approve, reject, fail, hang, write text instead of a verdict, or give a malformed verdict).
The rules reach low-risk calls too: ``deny`` on any call under ``secret/``, ``ask`` on reads under
``src/``. For every example:

- a high-risk call — or a low-risk call an ``ask`` rule sends to review — executes if and only if
  its review decision approved it; a call a ``deny`` rule matches never executes, low-risk or not;
- that decision is what the rule says about the behaviours (computed here independently);
- a high-risk call never runs alongside another call, and nothing runs while reviewing;
- every call gets exactly one result, and the model receives them in emission order.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from quorum.application.execution import ExecutionParams, RunRequest
from quorum.application.ports.reviewer import ReviewContext
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.policy import PolicyRule
from quorum.domain.responses import LlmResponse, StopReason
from quorum.domain.review import ReviewDecision, Verdict
from quorum.domain.tools import RiskLevel, ToolCall, ToolParameter
from quorum.infrastructure.plugins.contracts import ReviewerContext
from quorum.infrastructure.review import build_reviewer
from quorum.infrastructure.review.settings import ReviewSettings
from tests.fakes import FakeGateway, FakeTools, JsonSchema, RecordingObserver, ScriptedSession, text
from tests.support.config import settings_with
from tests.support.reviewer_sessions import BEHAVIOURS, Behaviour, BehaviourGateway, expected_verdict

PATHS = ("docs/a.md", "secret/key.pem", "src/app.py")
RULES = [
    PolicyRule(decision="deny", tool="*", match={"path": "secret/**"}, reason="never touch secrets"),
    PolicyRule(decision="ask", tool="read", match={"path": "src/**"}, reason="source is private"),
    PolicyRule(decision="allow", tool="write", match={"path": "docs/**"}, reason="docs are fair game"),
]


@dataclass(frozen=True)
class Scenario:
    turns: list[list[tuple[str, str]]]  # per turn: (tool, path)
    panel: list[str]
    behaviours: dict[str, list[Behaviour]]
    rule: str
    min_votes: int | None
    hil_mode: str
    escalate: bool
    with_rules: bool
    max_rejections: int
    stream: bool


@st.composite
def scenarios(draw: Any) -> Scenario:
    turns = draw(
        st.lists(
            st.lists(st.tuples(st.sampled_from(["read", "write"]), st.sampled_from(PATHS)), min_size=1, max_size=4),
            min_size=1,
            max_size=4,
        )
    )
    size = draw(st.integers(0, 3))
    panel = [f"fake:reviewer-{i}" for i in range(size)]
    highs = sum(tool == "write" or path.startswith("src/") for turn in turns for tool, path in turn)
    weights = st.sampled_from(BEHAVIOURS).filter(lambda b: b != "timeout") | st.just("timeout")
    behaviours = {m: draw(st.lists(weights, min_size=highs, max_size=highs)) for m in panel}
    rules = ["majority", "unanimous", "percentage:50", "percentage:75"]
    rules += [f"at_least:{k}" for k in range(1, size + 1)]
    return Scenario(
        turns=turns,
        panel=panel,
        behaviours=behaviours,
        rule=draw(st.sampled_from(rules)),
        min_votes=draw(st.none() | st.integers(1, max(size, 1))) if size else None,
        hil_mode=draw(st.sampled_from(["interactive", "auto_approve", "auto_reject"])),
        escalate=draw(st.booleans()),
        with_rules=draw(st.booleans()),
        max_rejections=draw(st.integers(1, 5)),
        stream=draw(st.booleans()),
    )


def oracle(s: Scenario, tool: str, path: str, used: list[Behaviour]) -> tuple[bool, str]:
    """(approved, decided_by) for one reviewed call, from the scenario alone."""
    if s.with_rules and path.startswith("secret/"):
        return False, "policy"
    human = (s.hil_mode == "auto_approve", "auto")
    if s.with_rules and tool == "read":  # only reads under src/ are reviewed: the ask rule
        return human
    if s.with_rules and path.startswith("docs/"):
        return True, "policy"
    if not s.panel:
        return human
    verdicts = [expected_verdict(b) for b in used]
    approvals = verdicts.count(Verdict.APPROVE)
    cast = approvals + verdicts.count(Verdict.REJECT)
    needed = len(s.panel) // 2 + 1 if s.min_votes is None else s.min_votes
    if cast == 0 or cast < needed:
        ok = False
    elif s.rule == "majority":
        ok = 2 * approvals > cast
    elif s.rule == "unanimous":
        ok = approvals == cast
    elif s.rule.startswith("at_least:"):
        ok = approvals >= int(s.rule.split(":")[1])
    else:
        ok = 100 * approvals >= float(s.rule.split(":")[1]) * cast
    if ok or not s.escalate:
        return ok, "quorum"
    return human


class WatchingReviewer:
    """Wraps the pipeline: records what was running at review time, and each decision."""

    def __init__(self, inner: Any, tools: FakeTools) -> None:
        self.inner, self.tools = inner, tools
        self.running_at_review: list[int] = []
        self.decisions: dict[str, ReviewDecision] = {}

    def screen(self, call: ToolCall, tool: Any) -> Any:
        return self.inner.screen(call, tool)

    async def review(self, call: ToolCall, context: ReviewContext) -> ReviewDecision:
        self.running_at_review.append(self.tools.running)
        decision = await self.inner.review(call, context)
        self.decisions[call.native_id] = decision
        return decision


async def run_scenario(s: Scenario) -> None:
    tools = FakeTools()
    overlaps: list[str] = []

    async def read(args: dict[str, Any]) -> str:
        for _ in range(3):
            if s.with_rules and args["path"].startswith("src/") and tools.running != 1:
                overlaps.append(args["path"])  # an asked read is reviewed, so it runs alone
            await asyncio.sleep(0)
        return "read ok"

    async def write(args: dict[str, Any]) -> str:
        for _ in range(3):  # yield: anything running concurrently would be seen here
            if tools.running != 1:
                overlaps.append(args["path"])
            await asyncio.sleep(0)
        return "written"

    path = ToolParameter(name="path", param_type="path")
    tools.add("read", read, risk=RiskLevel.LOW, params=[path])
    tools.add("write", write, risk=RiskLevel.HIGH, params=[path])

    script: list[Any] = []
    call_path: dict[str, str] = {}
    all_ids: list[str] = []
    for t, turn in enumerate(s.turns):
        blocks = []
        for i, (tool, p) in enumerate(turn):
            cid = f"t{t}c{i}"
            call_path[cid] = p
            all_ids.append(cid)
            blocks.append(ToolCall(native_id=cid, name=tool, arguments={"path": p}))
        script.append(LlmResponse(content=tuple(blocks), stop_reason=StopReason.tool_use()))
    script.append(text("done"))
    session = ScriptedSession(script)

    reviewer_gateway = BehaviourGateway({m: list(q) for m, q in s.behaviours.items()})
    settings_ = ReviewSettings(
        reviewers=s.panel,
        rule=s.rule,
        min_votes=s.min_votes,
        vote_timeout_seconds=0.02,
        escalate_on_reject=s.escalate,
        hil_mode=s.hil_mode,  # type: ignore[arg-type]
        rules=RULES if s.with_rules else [],
    )
    context = ReviewerContext(settings=settings_with(settings_), gateway=reviewer_gateway)  # type: ignore[arg-type]
    pipeline = build_reviewer(context)
    watcher = WatchingReviewer(pipeline, tools)
    observer = RecordingObserver()
    agent = RunAgent(
        gateway=FakeGateway(session),
        executor=tools,
        schema=JsonSchema(),
        reviewer=watcher,
        observer=observer,
        new_run_id=lambda: "run-p",
    )
    # Scenarios repeat calls freely: the loop guard (tested on its own) is kept out of the way.
    params = ExecutionParams(
        max_tool_turns=10, max_rejections=s.max_rejections, stream=s.stream, max_repeated_calls=1000
    )
    result = await agent.execute(RunRequest(task="property", model_id="fake:main", params=params))

    # Every call that was asked for (in the turns the run reached) has exactly one result.
    issued = [
        b.native_id for m in session.history() if m.role == "assistant" for b in m.content if isinstance(b, ToolCall)
    ]
    counts = Counter(e.call_id for e in observer.of("tool_result"))
    assert all(counts[cid] == 1 for cid in issued), counts
    assert set(counts) == set(issued)
    for m_index, message in enumerate(session.history()):
        ids = [b.native_id for b in message.content if isinstance(b, ToolCall)]
        if ids:
            answered = [getattr(b, "call_id", None) for b in session.history()[m_index + 1].content]
            assert answered == ids

    # Review is the only path: a reviewed call executed iff its decision approved it.
    executed = set(tools.executed)
    offsets: dict[str, int] = Counter()  # per reviewer: how many sessions consumed so far
    reviews = {e.call_id: e for e in observer.of("review")}
    for cid in issued:
        tool, path = ("write" if _is_write(s, cid) else "read"), call_path[cid]
        if s.with_rules and path.startswith("secret/"):  # denied before scheduling, read or write
            assert cid not in executed and cid not in watcher.decisions, cid
            if cid in reviews:  # absent only when the turn was cut short before it was screened
                assert (reviews[cid].approved, reviews[cid].decided_by) == (False, "policy")
            continue
        if tool == "read" and not (s.with_rules and path.startswith("src/")):
            assert cid in executed
            continue
        decision = watcher.decisions.get(cid)
        assert (cid in executed) == (decision is not None and decision.approved), cid
        if decision is None:
            continue  # skipped after the rejection limit: never reviewed, never executed
        decided_by_rule = s.with_rules and (tool == "read" or not path.startswith("src/"))
        quorum_ran = bool(s.panel) and not decided_by_rule
        used = []
        if quorum_ran:
            used = [s.behaviours[m][offsets[m]] for m in s.panel]
            for m in s.panel:
                offsets[m] += 1
        approved, decided_by = oracle(s, tool, path, used)
        assert (decision.approved, decision.decided_by) == (approved, decided_by), (cid, used, decision)
        if quorum_ran:
            panel_votes = [v for v in decision.votes if v.reviewer != "human"]
            assert [v.verdict for v in panel_votes] == [expected_verdict(b) for b in used]
            assert all(v.latency >= 0 for v in panel_votes)
            for v, b in zip(panel_votes, used, strict=True):
                if b == "timeout":
                    assert "no answer within" in v.reason
    assert dict(reviewer_gateway.used) == {m: s.behaviours[m][: offsets[m]] for m in s.panel if offsets[m]}

    # Never concurrently: nothing ran during a high-risk call or during a review.
    assert overlaps == []
    assert set(watcher.running_at_review) <= {0}
    assert result.stop_reason in ("end_turn", "rejected")
    reviewed_events = [e.call_id for e in observer.of("review") if e.call_id in watcher.decisions]
    assert reviewed_events == list(watcher.decisions)


def _is_write(s: Scenario, cid: str) -> bool:
    t, c = cid[1:].split("c")
    return s.turns[int(t)][int(c)][0] == "write"


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(scenarios())
def test_high_risk_calls_execute_only_when_review_approved(s: Scenario) -> None:
    asyncio.run(run_scenario(s))
