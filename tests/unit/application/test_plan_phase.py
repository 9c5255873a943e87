"""Plan mode in the loop: a read-only planning phase enforced by the executor, the plan's review, execution.

Scripted session, fake tools and a scripted reviewer; effects are checked on what the tools executed.
"""

from __future__ import annotations

from typing import Any

from quorum.application.execution import ExecutionParams, RunRequest, RunResult
from quorum.application.use_cases.run_agent import RunAgent
from quorum.domain.policy import PolicyRule
from quorum.domain.tools import RiskLevel, ToolParameter
from tests.fakes import (
    FakeGateway,
    FakeTools,
    JsonSchema,
    RecordingObserver,
    ScriptedReviewer,
    ScriptedSession,
    calls,
    text,
)

PLAN = {
    "summary": "Fix the greeting",
    "steps": [
        {"description": "Read hello.txt"},
        {"description": "Rewrite it", "files": ["hello.txt"]},
        {"description": "Check it", "commands": ["cat hello.txt"]},
    ],
}
REVISED = {"summary": "Fix the greeting, keeping a backup", "steps": [{"description": "Rewrite", "files": ["b.txt"]}]}


class World:
    def __init__(self, script: list[Any], **reviewer: Any) -> None:
        self.session = ScriptedSession(script)
        self.gateway = FakeGateway(self.session)
        self.tools = FakeTools()
        self.written: list[dict[str, Any]] = []
        self.commands: list[str] = []

        async def read(args: dict[str, Any]) -> str:
            return "hello wrold"

        async def write(args: dict[str, Any]) -> str:
            self.written.append(args)
            return "written"

        async def run(args: dict[str, Any]) -> str:
            self.commands.append(args["command"])
            return "ran"

        self.tools.add("read_file", read, params=[ToolParameter(name="path")])
        self.tools.add("write_file", write, risk=RiskLevel.HIGH, params=[ToolParameter(name="path")])
        self.tools.add("run_command", run, risk=RiskLevel.LOW, params=[ToolParameter(name="command")])
        self.reviewer = ScriptedReviewer(tools=self.tools, **reviewer)
        self.observer = RecordingObserver()

    async def run(self, **params: Any) -> RunResult:
        agent = RunAgent(
            gateway=self.gateway,
            executor=self.tools,
            schema=JsonSchema(),
            reviewer=self.reviewer,
            observer=self.observer,
            new_run_id=lambda: "run-1",
        )
        request = RunRequest(
            task="fix hello.txt",
            model_id="fake:m",
            system_prompt="BASE",
            params=ExecutionParams(plan="always", **params),
        )
        return await agent.execute(request)


async def test_high_risk_calls_in_the_planning_phase_never_execute_even_approved() -> None:
    allow_all = [PolicyRule(tool="*", decision="allow")]
    world = World(
        [
            calls(("write_file", {"path": "hello.txt"}), ("run_command", {"command": "rm -rf ."})),
            calls(("propose_plan", PLAN)),
            text("done"),
        ],
        rules=allow_all,
        default=True,
    )
    world.tools.risk_overrides["c2"] = RiskLevel.HIGH  # the shell classifier's verdict on rm -rf
    result = await world.run()
    assert result.stop_reason == "end_turn"
    assert world.written == [] and world.commands == []
    refused = world.observer.of("tool_result")[:2]
    assert [e.is_error for e in refused] == [True, True]
    assert "unknown tool 'write_file'" in refused[0].output  # not even offered
    assert "planning phase" in refused[1].output
    # the reviewer never saw them: a call's review cannot open the phase
    assert world.reviewer.reviewed == []


async def test_only_low_risk_tools_and_propose_plan_are_offered_while_planning() -> None:
    world = World([calls(("propose_plan", PLAN)), text("done")])
    await world.run()
    offered = [t["name"] for t in world.session.sent[0][1][1]]
    assert offered == ["read_file", "run_command", "propose_plan"]
    after = [t["name"] for t in world.session.sent[1][1][1]]
    assert after == ["read_file", "write_file", "run_command"]


async def test_an_approved_plan_joins_the_system_prompt_and_every_reviewer_context() -> None:
    world = World(
        [
            calls(("read_file", {"path": "hello.txt"})),
            calls(("propose_plan", PLAN)),
            calls(("write_file", {"path": "hello.txt"})),
            text("fixed"),
        ]
    )
    result = await world.run()
    assert (result.stop_reason, result.output) == ("end_turn", "fixed")
    assert world.written == [{"path": "hello.txt"}]
    prompts = [prompt for _, prompt in world.gateway.opened]
    assert "plan mode, planning phase" in prompts[1]
    assert "1. Read hello.txt" in prompts[2] and "2. Rewrite it" in prompts[2] and "BASE" in prompts[2]
    (context,) = world.reviewer.contexts
    assert "2. Rewrite it\n   files: hello.txt" in context.plan
    assert world.reviewer.plan_contexts[0].subject == "plan"
    types = world.observer.types()
    assert types.index("plan_proposed") < types.index("plan_reviewed") < types.index("run_finished")
    (reviewed,) = world.observer.of("plan_reviewed")
    assert reviewed.approved and reviewed.plan.steps[1].files == ("hello.txt",)


async def test_a_rejected_plan_goes_back_with_its_reason_and_the_revision_is_approved() -> None:
    world = World(
        [calls(("propose_plan", PLAN)), calls(("propose_plan", REVISED)), text("ok")],
        plan_verdicts=[(False, "keep a backup first")],
    )
    result = await world.run()
    assert result.stop_reason == "end_turn"
    reviewed = world.observer.of("plan_reviewed")
    assert [(r.approved, r.reason) for r in reviewed] == [(False, "keep a backup first"), (True, "a sound plan")]
    assert [p.attempt for p in world.observer.of("plan_proposed")] == [1, 2]
    rejection = world.session.sent[1][1][0][0]
    assert rejection.is_rejected and "keep a backup first" in rejection.output


async def test_no_plan_within_max_plan_turns_stops_no_plan() -> None:
    world = World([text("I think..."), calls(("read_file", {"path": "a"})), text("still thinking")])
    result = await world.run(max_plan_turns=2)
    assert result.stop_reason == "no_plan"
    assert result.detail == "no plan was approved within the planning turn limit (2)"
    assert result.turns == 2


async def test_plan_rejections_stop_the_run_at_max_rejections() -> None:
    world = World(
        [calls(("propose_plan", PLAN)), calls(("propose_plan", PLAN))],
        plan_verdicts=[(False, "no"), (False, "still no")],
    )
    result = await world.run(max_rejections=2)
    assert result.stop_reason == "rejected"
    assert world.written == []


async def test_planning_turns_do_not_count_against_max_tool_turns() -> None:
    world = World(
        [
            calls(("read_file", {"path": "a"})),
            calls(("propose_plan", PLAN)),
            calls(("read_file", {"path": "b"})),
            text("done"),
        ]
    )
    result = await world.run(max_tool_turns=1)
    assert result.stop_reason == "end_turn"


async def test_the_planning_executor_refuses_a_high_risk_call_whatever_its_clearance() -> None:
    from quorum.application.plan_mode import PROPOSE_PLAN_TOOL, PlanningExecutor
    from quorum.domain.tools import Clearance, ToolCall, ToolSpec

    world = World([])
    spec = await world.tools.list_tools()
    executor = PlanningExecutor(world.tools, ToolSpec([*spec.low_risk_tools(), PROPOSE_PLAN_TOOL]))
    world.tools.risk_overrides["x"] = RiskLevel.HIGH
    shell = ToolCall(native_id="x", name="run_command", arguments={"command": "rm -rf ."})
    write = ToolCall(native_id="w", name="write_file", arguments={"path": "a"})
    for call in (shell, write):
        result = await executor.execute(call, clearance=Clearance.APPROVED)
        assert result.is_error and "planning phase" in result.output
    plan = ToolCall(native_id="p", name="propose_plan", arguments=PLAN)
    assert (await executor.execute(plan)).is_error and executor.approved is None  # unreviewed: not approved
    assert world.commands == [] and world.written == []
    low = ToolCall(native_id="l", name="run_command", arguments={"command": "ls"})
    await executor.execute(low, clearance=Clearance.APPROVED)
    assert world.tools.clearances["l"] is Clearance.UNREVIEWED  # confined, whatever it was handed


async def test_a_run_continued_with_an_approved_plan_keeps_it_in_its_prompt_and_reviews() -> None:
    from quorum.domain.plans import ApprovedPlan, Plan

    world = World([calls(("write_file", {"path": "hello.txt"})), text("done")])
    agent = RunAgent(
        gateway=world.gateway,
        executor=world.tools,
        schema=JsonSchema(),
        reviewer=world.reviewer,
        observer=world.observer,
    )
    approved = ApprovedPlan(plan=Plan.model_validate(PLAN), turn=2)
    request = RunRequest(task="fix", model_id="fake:m", system_prompt="BASE", approved_plan=approved)
    result = await agent.execute(request)
    assert result.stop_reason == "end_turn"
    (prompt,) = [prompt for _, prompt in world.gateway.opened]
    assert prompt is not None and prompt.startswith("BASE\n\nThe approved plan") and "1. Read hello.txt" in prompt
    assert "2. Rewrite it" in world.reviewer.contexts[0].plan
    assert world.observer.of("plan_proposed") == []  # no planning phase: the plan is approved already
