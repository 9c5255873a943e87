"""Plan mode in the editor: a proposed plan as ACP shows it.

Two views of one ``Plan``: the ``plan`` session update (``AgentPlanUpdate``), one entry per step,
and the text of the ``propose_plan`` call (its tool call and its permission request), the
numbered plan as the terminal prints it. Quorum's plans have no priorities, so every entry is
``medium``; and the loop does not know which step it is on, so entries are ``pending`` until the
run ends its turn (then ``completed``) — no per-step progress is invented.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal

from acp import helpers

from quorum.application.plan_mode import PROPOSE_PLAN
from quorum.domain.plans import Plan, PlanStep

EntryStatus = Literal["pending", "in_progress", "completed"]


def plan_update(plan: Plan | None, status: EntryStatus = "pending") -> Any:
    """The ``plan`` session update: ``plan``'s steps, all ``status``; no entries for None (no plan now)."""
    steps = plan.steps if plan is not None else ()
    return helpers.update_plan([helpers.plan_entry(_entry(step), priority="medium", status=status) for step in steps])


def _entry(step: PlanStep) -> str:
    """A step on one line: its description, then the files it changes and the commands it runs."""
    text = " ".join(step.description.split())
    if step.files:
        text += f" (files: {', '.join(step.files)})"
    if step.commands:
        text += f" (commands: {'; '.join(' '.join(c.split()) for c in step.commands)})"
    return text


def proposed_plan(name: str, arguments: Mapping[str, Any]) -> Plan | None:
    """The plan a ``propose_plan`` call's arguments carry, or None (another tool, or not a plan)."""
    if name != PROPOSE_PLAN:
        return None
    try:
        return Plan.model_validate(dict(arguments))
    except ValueError:  # pydantic's ValidationError: a malformed plan is shown as its arguments
        return None


def plan_title(plan: Plan) -> str:
    """The title of a ``propose_plan`` call: ``Plan: SUMMARY`` (one line)."""
    return "Plan: " + " ".join(plan.summary.split())


def plan_content(plan: Plan) -> list[Any]:
    """The content of a ``propose_plan`` call: the numbered plan, as text."""
    return [helpers.tool_content(helpers.text_block(plan.numbered()))]
