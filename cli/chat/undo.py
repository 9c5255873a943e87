"""``/undo`` in ``quorum chat``: the plan of undoing the last message's run, in lines to show. Pure."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quorum.application.use_cases.undo_run import UndoPlan, UndoResult

_DONE = {"remove": "remove", "restore": "restore", "recreate": "recreate"}
_WHY = {"remove": "the run created it", "restore": "the run changed it", "recreate": "the run deleted it"}
QUESTION = "apply this undo? [y/N]"


def plan_lines(plan: UndoPlan) -> list[str]:
    """What undoing ``plan``'s run will do, one path a line (then its diff), conflicts last."""
    lines = [f"undo of run {plan.run_id}:"]
    for step in plan.steps:
        if not step.restorable:
            lines.append(f"  cannot restore {step.path}: it was over [checkpoints] max_file_mib before the run")
            continue
        lines.append(f"  {_DONE[step.action]:<9} {step.path} ({_WHY[step.action]})")
        lines.extend(f"      {line}" for line in (step.diff or "").splitlines())
    lines.extend(f"  CHANGED SINCE THE RUN: {path}" for path in plan.conflicts)
    return lines


def refusal(plan: UndoPlan) -> str:
    """Why nothing was undone: files changed since the run (``quorum undo --force`` restores them)."""
    return (
        f"nothing was changed: {', '.join(plan.conflicts)} changed since the run; "
        f"`quorum undo {plan.run_id} --force` restores anyway"
    )


def done_line(result: UndoResult) -> str:
    """The one line after an applied undo."""
    changed = sum(1 for step in result.plan.steps if step.restorable)
    return (
        f"undone: {changed} path{'s' * (changed != 1)} of run {result.run_id} "
        f"(recorded as run {result.undo_run_id}: `quorum undo {result.undo_run_id}` redoes)"
    )


def agreed(answer: str | None) -> bool:
    """Whether a person's answer to ``QUESTION`` is yes (anything else, end of input included: no)."""
    return answer is not None and answer.strip().lower() in ("y", "yes")
