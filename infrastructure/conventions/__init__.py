"""The conventions people bring from other agents: AGENTS.md, prompt commands, skills.

Each is found by a small reader here (``instructions``, ``commands``, ``skills``), over files
a checkout may have written with hostile intent: ``files.read_inside`` reads only regular files,
never follows a link out of the repository, and reads a bounded amount. They only reach the
model (no program runs), so they apply in untrusted workspaces too (docs/conventions.md).
"""

from quorum.infrastructure.conventions.commands import PromptCommand, PromptCommands, find_commands
from quorum.infrastructure.conventions.instructions import ProjectInstructions, find_instructions
from quorum.infrastructure.conventions.skills import Skill, Skills, find_skills

__all__ = [
    "ProjectInstructions",
    "PromptCommand",
    "PromptCommands",
    "Skill",
    "Skills",
    "find_commands",
    "find_instructions",
    "find_skills",
]
