"""``SkillToolSource``: the low-risk ``load_skill`` tool, offered when the workspace or the user has skills."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from quorum.domain.tools import (
    Clearance,
    RiskAssessment,
    RiskLevel,
    ToolCall,
    ToolDefinition,
    ToolParameter,
    ToolResult,
)
from quorum.infrastructure.conventions.files import Unreadable
from quorum.infrastructure.conventions.front_matter import FrontMatterError
from quorum.infrastructure.conventions.skills import Skills, load

LOAD_SKILL = ToolDefinition(
    name="load_skill",
    brief="Get a skill's instructions by name.",
    description=(
        "Get the instructions of a skill listed in the system prompt, and the list of files beside them "
        "(read those inside the workspace with read_file)."
    ),
    risk=RiskLevel.LOW,
    parameters=(ToolParameter(name="name", description="The skill's name, as listed.", param_type="string"),),
)


class SkillToolSource:
    """Implements ``ToolSource`` for ``load_skill`` over the skills found when the source was built.

    Reading a skill only returns text to the model, so the tool is low risk; a script the skill
    mentions runs through ``run_command`` and its review like any other.
    """

    name = "skills"

    def __init__(self, skills: Skills, workspace: Path) -> None:
        self._skills = skills
        self._workspace = workspace

    async def list_tools(self) -> Sequence[ToolDefinition]:
        return (LOAD_SKILL,) if self._skills.skills else ()

    def assess_risk(self, call: ToolCall, tool: ToolDefinition) -> RiskAssessment:
        return RiskAssessment(level=RiskLevel.LOW, reason="load_skill only reads a skill's instructions")

    async def execute(self, call: ToolCall, *, clearance: Clearance = Clearance.UNREVIEWED) -> ToolResult:
        name = call.arguments.get("name")
        skill = self._skills.get(name) if isinstance(name, str) else None
        if skill is None:
            known = ", ".join(skill.name for skill in self._skills.skills) or "none"
            return ToolResult(output=f"no skill named {name!r}; the skills are: {known}", is_error=True)
        try:
            return ToolResult(output=load(skill, self._workspace))
        except (Unreadable, FrontMatterError) as error:
            return ToolResult(output=f"skill {skill.name!r} cannot be read now: {error}", is_error=True)

    async def aclose(self) -> None:
        return None
