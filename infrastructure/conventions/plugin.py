"""Skills as a plugin (``quorum.conventions``): the ``skills`` tool source offering ``load_skill``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.infrastructure.plugins.contracts import ToolSourceContext
from quorum.infrastructure.plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from quorum.infrastructure.conventions.skill_tool import SkillToolSource
    from quorum.infrastructure.plugins.registries import ToolRegistry


def skill_source_factory(context: ToolSourceContext) -> SkillToolSource:
    """``load_skill`` over the workspace's and the user's skills (offered only when there are some)."""
    from quorum.infrastructure.conventions.skill_tool import SkillToolSource
    from quorum.infrastructure.conventions.skills import find_skills, skill_places

    workspace = context.workspace.resolve()
    return SkillToolSource(find_skills(skill_places(workspace, context.user_config_dir)), workspace)


@hookimpl
def quorum_register_tools(registry: ToolRegistry) -> None:
    registry.add_source("skills", skill_source_factory)
