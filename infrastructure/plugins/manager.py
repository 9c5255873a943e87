"""Plugin loading: built-ins from an explicit tuple, third parties from entry points, then hooks.

No plugin manager exists at import time; the container calls ``load_plugins`` once.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterable
from dataclasses import dataclass, field
from importlib import metadata
from typing import Any

import pluggy

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.plugins import hookspecs
from quorum.infrastructure.plugins.registries import (
    CommandRegistry,
    ConfigSectionRegistry,
    ProviderRegistry,
    Registration,
    ReviewerRegistry,
    StoreRegistry,
    ToolRegistry,
)

BUILTIN_PLUGINS: tuple[tuple[str, str], ...] = (
    ("quorum.offline", "quorum.infrastructure.providers.offline.plugin"),
    ("quorum.openai", "quorum.infrastructure.providers.openai.plugin"),
    ("quorum.anthropic", "quorum.infrastructure.providers.anthropic.plugin"),
    ("quorum.builtin_tools", "quorum.infrastructure.tools.plugin"),
    ("quorum.conventions", "quorum.infrastructure.conventions.plugin"),
    ("quorum.mcp", "quorum.infrastructure.mcp.plugin"),
    ("quorum.review", "quorum.infrastructure.review.plugin"),
    ("quorum.sqlite", "quorum.infrastructure.storage.plugin"),
    ("quorum.engine", "quorum.infrastructure.engines.plugin"),
    ("quorum.secrets", "quorum.infrastructure.secrets_plugin"),
    ("quorum.serve", "quorum.infrastructure.serve.plugin"),
    ("quorum.telemetry", "quorum.infrastructure.telemetry.plugin"),
    ("quorum.hooks", "quorum.infrastructure.hooks.plugin"),
    ("quorum.checkpoints", "quorum.infrastructure.checkpoints.plugin"),
)
"""(plugin name, module) of every built-in plugin, in load order."""


@dataclass(frozen=True)
class PluginInfo:
    """A loaded (or blocked) plugin, for ``quorum plugins list``."""

    name: str
    version: str | None
    builtin: bool
    blocked: bool = False
    distribution: str | None = None


@dataclass
class PluginCatalog:
    """Everything the plugins registered, and who they are."""

    manager: pluggy.PluginManager
    plugins: list[PluginInfo]
    config_sections: ConfigSectionRegistry
    providers: ProviderRegistry = field(default_factory=ProviderRegistry)
    tools: ToolRegistry = field(default_factory=ToolRegistry)
    reviewers: ReviewerRegistry = field(default_factory=ReviewerRegistry)
    stores: StoreRegistry = field(default_factory=StoreRegistry)
    _commands: CommandRegistry | None = None

    def registrations(self) -> list[Registration]:
        regs: list[Registration] = []
        for registry in (self.config_sections, self.providers, self.tools, self.reviewers, self.stores):
            regs.extend(registry.registrations())
        if self._commands is not None:
            regs.extend(self._commands.registrations())
        return regs

    def commands(self, reserved: frozenset[str]) -> CommandRegistry:
        """Plugin commands, collected on first use (only when the CLI needs them)."""
        if self._commands is None:
            registry = CommandRegistry(reserved)
            call_registration_hook(self.manager, "quorum_register_commands", "cli", registry)
            self._commands = registry
        return self._commands


def load_plugins(
    *,
    blocked: Iterable[str] = (),
    autoload: bool = True,
    reserved_sections: frozenset[str] = frozenset(),
    extra: Iterable[tuple[str, Any]] = (),
) -> PluginCatalog:
    """Create the plugin manager, load plugins and run the registration hooks.

    Args:
        blocked: plugin names (built-in or entry-point names) not to load.
        autoload: load third-party plugins from the ``quorum`` entry-point group.
        reserved_sections: quorum.toml keys plugins may not claim.
        extra: (name, plugin object) pairs registered after the built-ins (tests use this).

    Raises:
        ConfigurationError: a plugin failed to import, broke the hook contract, or registered
            something twice; the message names the plugin and how to block it.
    """
    blocked_set = set(blocked)
    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    infos: list[PluginInfo] = []
    for name in sorted(blocked_set):
        pm.set_blocked(name)

    for name, module_name in BUILTIN_PLUGINS:
        if name in blocked_set:
            infos.append(PluginInfo(name, None, builtin=True, blocked=True))
            continue
        _register(pm, importlib.import_module(module_name), name)
        infos.append(PluginInfo(name, None, builtin=True))

    for name, plugin in extra:
        _register(pm, plugin, name)
        infos.append(PluginInfo(name, None, builtin=False))

    if autoload:
        for ep in metadata.entry_points(group=hookspecs.PROJECT_NAME):
            dist = ep.dist
            version = dist.version if dist is not None else None
            dist_name = dist.metadata["Name"] if dist is not None else None
            if ep.name in blocked_set:
                infos.append(PluginInfo(ep.name, version, builtin=False, blocked=True, distribution=dist_name))
                continue
            if pm.get_plugin(ep.name) is not None:
                continue
            try:
                plugin = ep.load()
            except Exception as error:
                raise ConfigurationError(
                    f"plugin {ep.name!r} ({dist_name or ep.value}) failed to load: {type(error).__name__}: {error}. "
                    f"Block it with [plugins] blocked = [{ep.name!r}] or QUORUM_DISABLE_PLUGIN_AUTOLOAD=1"
                ) from error
            _register(pm, plugin, ep.name)
            infos.append(PluginInfo(ep.name, version, builtin=False, distribution=dist_name))
    try:
        pm.check_pending()
    except pluggy.PluginValidationError as error:
        raise ConfigurationError(f"plugin {error.plugin!r} implements an unknown hook: {error}") from error

    catalog = PluginCatalog(manager=pm, plugins=infos, config_sections=ConfigSectionRegistry(reserved_sections))
    call_registration_hook(pm, "quorum_register_config_sections", "registry", catalog.config_sections)
    call_registration_hook(pm, "quorum_register_providers", "registry", catalog.providers)
    call_registration_hook(pm, "quorum_register_tools", "registry", catalog.tools)
    call_registration_hook(pm, "quorum_register_reviewers", "registry", catalog.reviewers)
    call_registration_hook(pm, "quorum_register_stores", "registry", catalog.stores)
    return catalog


def blockable_plugin_names(catalog: PluginCatalog) -> set[str]:
    """Names ``[plugins] blocked`` may list: built-ins, installed entry points and loaded plugins.

    Blocked plugins are never loaded, so the loaded ones alone would miss them; entry points are
    listed whether or not autoload is on, since blocking one still means something then.
    """
    names = {name for name, _ in BUILTIN_PLUGINS} | {info.name for info in catalog.plugins}
    return names | {ep.name for ep in metadata.entry_points(group=hookspecs.PROJECT_NAME)}


def _register(pm: pluggy.PluginManager, plugin: Any, name: str) -> None:
    try:
        pm.register(plugin, name=name)
    except pluggy.PluginValidationError as error:
        raise ConfigurationError(f"plugin {name!r} breaks the hook contract: {error}") from error
    except ValueError as error:
        raise ConfigurationError(f"plugin {name!r}: {error}") from error


def call_registration_hook(pm: pluggy.PluginManager, hook_name: str, arg: str, registry: Any) -> None:
    """Call each implementation of ``hook_name`` in turn, telling the registry who is calling."""
    caller = getattr(pm.hook, hook_name)
    # get_hookimpls() is in registration order (pluggy's own calls run it backwards): built-ins
    # register first, so a third-party plugin clashing with a built-in is the one named second.
    for impl in caller.get_hookimpls():
        registry.current_plugin = impl.plugin_name
        kwargs = {arg: registry} if arg in impl.argnames else {}
        try:
            impl.function(**kwargs)
        except ConfigurationError:
            raise
        except Exception as error:
            raise ConfigurationError(
                f"plugin {impl.plugin_name!r} failed in {hook_name}: {type(error).__name__}: {error}"
            ) from error
    registry.current_plugin = "?"
