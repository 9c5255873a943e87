"""The built-in tools as a plugin (``quorum.builtin_tools``): registers the ``builtin`` tool source."""

from __future__ import annotations

from typing import Any

from quorum.infrastructure.plugins.contracts import ToolSourceContext
from quorum.infrastructure.plugins.hookspecs import hookimpl


def builtin_source_factory(context: ToolSourceContext) -> Any:
    """File, search and shell tools confined to the workspace; commands sandboxed."""
    from quorum.infrastructure.sandbox.detect import sandbox_status
    from quorum.infrastructure.sandbox.redacted_files import RedactedCopies
    from quorum.infrastructure.tools.builtin import BuiltinToolSource
    from quorum.infrastructure.tools.command_launch import CommandLauncher
    from quorum.infrastructure.tools.settings import ToolsSettings

    settings = getattr(context.settings, "tools", None)
    if not isinstance(settings, ToolsSettings):
        settings = ToolsSettings()
    status = sandbox_status(settings.sandbox.mode, settings.sandbox.program)
    workspace = context.workspace.resolve()
    copies = RedactedCopies(context.config_files, workspace, context.secrets.redactor())
    launcher = CommandLauncher(workspace, settings, status, context.env, context.secrets, copies.replaced)
    return BuiltinToolSource(workspace, settings, launcher, on_close=copies.close)


@hookimpl
def quorum_register_tools(registry: Any) -> None:
    registry.add_source("builtin", builtin_source_factory)
