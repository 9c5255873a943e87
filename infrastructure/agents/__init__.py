"""Subagent definitions: read from Markdown files and ``[agents.NAME]`` tables, validated."""

from quorum.infrastructure.agents.definitions import AGENTS_DIR, SubagentTable, load_subagents

__all__ = ["AGENTS_DIR", "SubagentTable", "load_subagents"]
