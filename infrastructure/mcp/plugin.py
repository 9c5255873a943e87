"""MCP servers as a plugin (``quorum.mcp``): registers the ``mcp`` tool source and ``[mcp]``.

Importing this module must stay cheap: the ``mcp`` SDK is imported only when a server starts.
"""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from quorum.infrastructure.mcp.settings import McpSettings
from quorum.infrastructure.plugins.contracts import ToolSourceContext
from quorum.infrastructure.plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from quorum.infrastructure.mcp.auth.store import McpTokenStore
    from quorum.infrastructure.mcp.pins import PinStore
    from quorum.infrastructure.mcp.source import McpToolSource
    from quorum.infrastructure.plugins.registries import ConfigSectionRegistry, ToolRegistry


def mcp_source_factory(context: ToolSourceContext) -> McpToolSource:
    """Tools of the MCP servers configured under [mcp.servers]."""
    from quorum.infrastructure.mcp.cache import CACHE_SUBDIR
    from quorum.infrastructure.mcp.client_features import ClientSide
    from quorum.infrastructure.mcp.source import McpToolSource

    servers = context.settings.section(McpSettings).servers
    cache_dir = Path(context.cache_dir) / CACHE_SUBDIR if context.cache_dir is not None else None
    tokens = token_store(context)
    pins = pin_store(context)
    side = ClientSide(gateway=context.gateway, prompt=context.prompt, on_elicitation=context.on_elicitation)
    return McpToolSource(
        servers,
        env=context.env,
        workspace=context.workspace,
        cache_dir=cache_dir,
        token_store=tokens,
        client_side=side,
        pins=pins,
    )


def pin_store(context: ToolSourceContext) -> PinStore | None:
    """The store of pinned tool definitions, in the data dir (the parent of ``cache_dir``)."""
    from quorum.infrastructure.mcp.pins import PINS_SUBDIR, PinStore

    if context.cache_dir is None:
        return None
    return PinStore(Path(context.cache_dir).parent / PINS_SUBDIR)


def token_store(context: ToolSourceContext) -> McpTokenStore | None:
    """The OAuth token store, in the data dir (the parent of ``cache_dir``); None without one."""
    from quorum.infrastructure.mcp.auth.store import open_token_store

    if context.cache_dir is None:
        return None
    return open_token_store(context.env, Path(context.cache_dir).parent)


@hookimpl
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    registry.add("mcp", McpSettings)


@hookimpl
def quorum_register_tools(registry: ToolRegistry) -> None:
    registry.add_source("mcp", mcp_source_factory)
