"""The built-in tools as a plugin (``quorum.builtin_tools``): the ``builtin`` tool source and ``[tools]``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.infrastructure.plugins.contracts import ToolSourceContext
from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.tools.settings import ToolsSettings

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.registries import ConfigSectionRegistry, ToolRegistry
    from quorum.infrastructure.tools.builtin import BuiltinToolSource


def builtin_source_factory(context: ToolSourceContext) -> BuiltinToolSource:
    """File, search and shell tools confined to the workspace; commands sandboxed."""
    from quorum.infrastructure.sandbox.detect import sandbox_status
    from quorum.infrastructure.sandbox.redacted_files import RedactedCopies
    from quorum.infrastructure.tools.builtin import BuiltinToolSource
    from quorum.infrastructure.tools.shell.launch import CommandLauncher

    settings = context.settings.section(ToolsSettings)
    status = sandbox_status(settings.sandbox.mode, settings.sandbox.program)
    workspace = context.workspace.resolve()
    copies = RedactedCopies(context.config_files, workspace, context.secrets.redactor())
    launcher = CommandLauncher(workspace, settings, status, context.env, context.secrets, copies.replaced)
    return BuiltinToolSource(workspace, settings, launcher, on_close=copies.close)


@hookimpl
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    registry.add("tools", ToolsSettings)


@hookimpl
def quorum_register_tools(registry: ToolRegistry) -> None:
    registry.add_source("builtin", builtin_source_factory)
