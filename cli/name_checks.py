"""Checking the names a configuration uses, before a command acts on it.

Gathers what exists from the container — built-in and plugin tools, MCP tool lists from the cache
(no server is started), plugin names, the LLM gateway — and hands it to the pure checks
(``infrastructure.review.name_checks``, ``infrastructure.review.panel_check``).
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from quorum.composition.container import Container
    from quorum.infrastructure.tools.known_tools import KnownTools

LISTABLE_SOURCES = frozenset({"builtin", "mcp", "skills"})
"""Built-in tool sources whose tools are known without building them; any other source is not.

``skills`` offers ``load_skill`` alone (when there are skills): named here, never started."""


def check_configured_names(container: Container, *, panel: bool = True) -> None:
    """Raise for names that match nothing; print a warning for names that could not be checked.

    Args:
        container: the command's container (settings, catalog and gateway are built if needed).
        panel: also open a session for every reviewer model of ``[review] reviewers``.

    Raises:
        ConfigurationError: every problem, one ``file: key.path: message`` line each.
    """
    from quorum.infrastructure.plugins.manager import blockable_plugin_names
    from quorum.infrastructure.review.name_checks import check_names
    from quorum.infrastructure.review.panel_check import check_panel
    from quorum.infrastructure.review.settings import ReviewSettings

    settings = container.settings()
    catalog = container.catalog()
    report = check_names(settings, known_tools(container), blockable_plugin_names(catalog))
    if panel:
        report.errors.extend(check_panel(settings.section(ReviewSettings), catalog.reviewers, container.gateway()))
    report.raise_errors(container.raw_config().source_of)
    for line in report.warnings():
        print(f"quorum: warning: {line}", file=sys.stderr, flush=True)


def known_tools(container: Container) -> KnownTools:
    """The tools known without starting anything, from the container's catalog and settings."""
    from quorum.application.delegation import delegate_tool
    from quorum.composition.paths import user_data_dir
    from quorum.infrastructure.conventions.skill_tool import LOAD_SKILL
    from quorum.infrastructure.mcp.cache import CACHE_SUBDIR, ToolListCache
    from quorum.infrastructure.mcp.naming import server_prefix
    from quorum.infrastructure.mcp.settings import McpSettings
    from quorum.infrastructure.tools.builtin import BUILTIN_TOOLS
    from quorum.infrastructure.tools.known_tools import known_tools as assemble

    settings = container.settings()
    catalog = container.catalog()
    cache = ToolListCache(user_data_dir() / "cache" / CACHE_SUBDIR)
    servers = settings.section(McpSettings).servers
    agents = list(container.subagents().values())
    delegate = [delegate_tool(agents, {})] if agents else []  # offered when subagents are defined
    return assemble(
        [*BUILTIN_TOOLS, LOAD_SKILL, *(tool.definition for tool in catalog.tools.functions.values()), *delegate],
        {name: cache.schemas(name, server) for name, server in servers.items()},
        mcp_prefixes={name: server_prefix(name) for name in servers},
        unlisted_sources=[name for name in catalog.tools.names() if name not in LISTABLE_SOURCES],
    )
