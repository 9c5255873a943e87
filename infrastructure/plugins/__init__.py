"""Plugin system: hookspecs, registrars and loading. Built-in features are plugins too."""

from quorum.infrastructure.plugins.contracts import (
    ProviderContext,
    ProviderGateway,
    ReviewerContext,
    StoreContext,
    ToolSource,
    ToolSourceContext,
)
from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.manager import BUILTIN_PLUGINS, PluginCatalog, PluginInfo, load_plugins
from quorum.infrastructure.plugins.registries import (
    CommandRegistry,
    ConfigSectionRegistry,
    ProviderRegistry,
    Registration,
    ReviewerRegistry,
    StoreRegistry,
    ToolRegistry,
)

__all__ = [
    "BUILTIN_PLUGINS",
    "CommandRegistry",
    "ConfigSectionRegistry",
    "PluginCatalog",
    "PluginInfo",
    "ProviderContext",
    "ProviderGateway",
    "ProviderRegistry",
    "Registration",
    "ReviewerContext",
    "ReviewerRegistry",
    "StoreContext",
    "StoreRegistry",
    "ToolRegistry",
    "ToolSource",
    "ToolSourceContext",
    "hookimpl",
    "load_plugins",
]
