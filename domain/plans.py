"""A plan: what the agent intends to do, proposed in plan mode and reviewed before any change.

The model proposes it through the ``propose_plan`` tool (its arguments are a ``Plan``); the
review panel and a person approve or reject it; once approved it is added to the system prompt
of the execution phase and shown to every reviewer of a high-risk call.
"""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field


class PlanStep(BaseModel):
    """One step of a plan, with the actions it intends.

    Attributes:
        description: what the step does.
        files: the files the step changes (paths as the tools take them).
        commands: the commands the step runs.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    description: str = Field(min_length=1)
    files: tuple[str, ...] = ()
    commands: tuple[str, ...] = ()


class Plan(BaseModel):
    """A summary and ordered steps (at least one)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    summary: str = Field(min_length=1)
    steps: tuple[PlanStep, ...] = Field(min_length=1)

    def numbered(self) -> str:
        """The plan as text: the summary, then ``1. step`` lines with their files and commands indented."""
        lines = [" ".join(self.summary.split())]
        for number, step in enumerate(self.steps, 1):
            lines.append(f"{number}. {' '.join(step.description.split())}")
            if step.files:
                lines.append(f"   files: {', '.join(step.files)}")
            for command in step.commands:
                lines.append(f"   command: {' '.join(command.split())}")
        return "\n".join(lines)


class ApprovedPlan(BaseModel):
    """A plan the review approved, and the turn in which it was (execution turns count from there)."""

    model_config = ConfigDict(frozen=True)

    plan: Plan
    turn: int = 0
