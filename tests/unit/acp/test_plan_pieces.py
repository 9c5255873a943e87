"""Plan mode's ACP pieces: the plan's permission request, a client's reason, the ``plan`` updates."""

from __future__ import annotations

from typing import Any

from acp.schema import AllowedOutcome, DeniedOutcome, RequestPermissionResponse

from quorum.acp.modes import hil_mode_of, mode_named, parse_command
from quorum.acp.permission import EditorPrompt, SessionScopes
from quorum.acp.plan_view import proposed_plan
from quorum.acp.updates import EventTranslator
from quorum.application.plan_mode import PROPOSE_PLAN_TOOL
from quorum.application.ports.reviewer import ReviewContext
from quorum.domain.events import PlanProposed, PlanReviewed, RunFinished, RunStopReason
from quorum.domain.plans import Plan
from quorum.domain.responses import RunUsage
from quorum.domain.secrets import Redactor, Secret
from quorum.domain.tools import RiskLevel, ToolCall
from quorum.infrastructure.review.human import HumanRequest
from quorum.infrastructure.tools.workspace import Workspace

PLAN = {"summary": "Fix it", "steps": [{"description": "Edit a.txt", "files": ["a.txt"]}]}


def plan_request() -> HumanRequest:
    call = ToolCall(native_id="p1", name="propose_plan", arguments=PLAN)
    context = ReviewContext(run_id="r", task="t", tool=PROPOSE_PLAN_TOOL, risk=RiskLevel.HIGH, subject="plan")
    return HumanRequest(call=call, context=context, why="plan review: no reviewer models are configured")


async def ask(response: RequestPermissionResponse, redactor: Redactor | None = None) -> tuple[Any, list[Any], Any]:
    asked: list[Any] = []

    async def send(update: Any, options: list[Any]) -> RequestPermissionResponse:
        asked.append((update, options))
        return response

    async def nothing() -> None:
        return None

    prompt = EditorPrompt(
        send, SessionScopes(), redactor or Redactor(), before_asking=nothing, tool_content=lambda _: []
    )
    answer = await prompt.ask(plan_request())
    [(update, options)] = asked
    return update, options, answer


def selected(option_id: str, meta: dict[str, Any] | None = None) -> RequestPermissionResponse:
    return RequestPermissionResponse(outcome=AllowedOutcome(outcome="selected", option_id=option_id, field_meta=meta))


async def test_a_plan_is_asked_with_its_numbered_text_and_no_always() -> None:
    update, options, answer = await ask(selected("allow_once"))
    assert [o.kind for o in options] == ["allow_once", "reject_once"]
    assert update.title == "Plan: Fix it" and update.kind == "switch_mode"
    assert update.content[0].content.text == "Fix it\n1. Edit a.txt\n   files: a.txt"
    assert update.content[1].content.text == "Asked because plan review: no reviewer models are configured."
    assert answer.choice == "approve"


async def test_a_rejection_carries_the_clients_reason_else_the_options() -> None:
    _, _, plain = await ask(selected("reject_once"))
    assert (plain.choice, plain.reason) == ("reject", "the plan was rejected by the user in the editor")
    _, _, given = await ask(selected("reject_once", {"reason": "  keep\na backup "}))
    assert (given.choice, given.reason) == ("reject", "keep a backup")
    on_response = RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"), field_meta={"reason": "no"})
    _, _, cancelled = await ask(on_response)
    assert (cancelled.choice, cancelled.reason) == ("reject", "no")
    _, _, forged = await ask(selected("allow_always"))  # not offered for a plan: never an approval
    assert forged.choice == "reject"
    _, _, ignored = await ask(selected("reject_once", {"reason": 42}))  # not text: the option's words
    assert ignored.reason == "the plan was rejected by the user in the editor"


async def test_a_clients_reason_is_redacted_before_it_reaches_the_model() -> None:
    redactor = Redactor([Secret("OPENAI_API_KEY", "sk-secret-value")])
    _, _, answer = await ask(selected("reject_once", {"reason": "use sk-secret-value"}), redactor)
    assert "sk-secret-value" not in answer.reason


def test_plan_updates_say_only_what_the_loop_knows(tmp_path: Any) -> None:
    translator = EventTranslator(Workspace(tmp_path), Redactor())
    plan = Plan.model_validate(PLAN)
    finished = {"turns": 2, "output": "", "usage": RunUsage()}

    def entries(event: Any) -> list[list[tuple[str, str]]]:
        return [[(e.content, e.status) for e in u.entries] for u in translator.updates(event)]

    assert entries(PlanProposed(call_id="p1", plan=plan)) == [[("Edit a.txt (files: a.txt)", "pending")]]
    reviewed = {"call_id": "p1", "plan": plan, "decided_by": "human", "votes": [], "reason": ""}
    assert entries(PlanReviewed(approved=False, **reviewed)) == [[]]
    assert entries(RunFinished(stop_reason=RunStopReason.END_TURN, **finished)) == []  # no approved plan
    assert entries(PlanReviewed(approved=True, **reviewed)) == [[("Edit a.txt (files: a.txt)", "pending")]]
    assert entries(RunFinished(stop_reason=RunStopReason.CANCELLED, **finished)) == []  # not done: unchanged
    assert entries(PlanReviewed(approved=True, **reviewed)) == [[("Edit a.txt (files: a.txt)", "pending")]]
    assert entries(RunFinished(stop_reason=RunStopReason.END_TURN, **finished)) == [
        [("Edit a.txt (files: a.txt)", "completed")]
    ]


def test_plan_mode_asks_as_interactive_and_plan_is_a_command() -> None:
    assert mode_named("plan") == "plan" and hil_mode_of("plan") == "interactive"
    assert hil_mode_of("auto_reject") == "auto_reject"
    assert parse_command("/plan fix it") == ("plan", "fix it")
    assert proposed_plan("propose_plan", {"summary": "x", "steps": []}) is None  # malformed: shown as arguments
    assert proposed_plan("write_file", PLAN) is None
