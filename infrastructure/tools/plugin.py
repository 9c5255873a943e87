"""The built-in tools as a plugin (``quorum.builtin_tools``): registers the ``builtin`` tool source."""

from __future__ import annotations

from typing import Any

from quorum.infrastructure.plugins.contracts import ToolSourceContext
from quorum.infrastructure.plugins.hookspecs import hookimpl


def builtin_source_factory(context: ToolSourceContext) -> Any:
    """File, search and shell tools confined to the workspace."""
    from quorum.infrastructure.tools.builtin import BuiltinToolSource
    from quorum.infrastructure.tools.settings import ToolsSettings

    settings = getattr(context.settings, "tools", None)
    return BuiltinToolSource(
        context.workspace,
        settings if isinstance(settings, ToolsSettings) else None,
        env=context.env or None,
    )


@hookimpl
def quorum_register_tools(registry: Any) -> None:
    registry.add_source("builtin", builtin_source_factory)
