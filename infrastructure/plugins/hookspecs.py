"""The plugin contract: every hook Quorum calls, prefixed ``quorum_``.

A plugin is a module or object with functions marked ``@hookimpl`` whose names are the hooks below.
Built-in features are plugins too, loaded from an explicit tuple (``BUILTIN_PLUGINS``) before the
third-party plugins found in the ``quorum`` entry-point group.

Rules shared by every hook:

- Hooks are called once per process, right after all plugins are loaded, in registration order.
- Registration hooks receive a *registrar* and return nothing. The registrar validates what it is
  given, records which plugin registered it, and rejects a name registered twice with a
  ``ConfigurationError`` naming both plugins.
- Registration must stay cheap: register *factories*. Import SDKs and start processes only when the
  factory is called (when a run needs the thing), never at import or registration time.
- An implementation may accept fewer arguments than the spec lists (pluggy's opt-in arguments);
  new arguments are only ever added, so existing plugins keep working.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.registries import (
        CommandRegistry,
        ConfigSectionRegistry,
        ProviderRegistry,
        ReviewerRegistry,
        StoreRegistry,
        ToolRegistry,
    )

PROJECT_NAME = "quorum"
"""The pluggy project name and the entry-point group third-party plugins are published under."""

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    """Declare top-level quorum.toml sections this plugin owns (the built-in plugins declare theirs here too).

    Called: first, before the configuration is validated.
    Params: ``registry.add(key, model)`` with a pydantic model validating ``[key]``; the validated
    section is read back typed with ``settings.section(model)``.
    Result: none. Keys already used by Quorum or another plugin, and a model already declared
    under another key, are rejected.
    """


@hookspec
def quorum_register_providers(registry: ProviderRegistry) -> None:
    """Register LLM provider kinds.

    Called: once at startup.
    Params: ``registry.add(kind, factory, settings=Model)``. ``factory(context)`` returns a
    ``ProviderGateway`` for one ``[providers.NAME]`` instance; ``settings`` validates that section.
    Result: none.
    """


@hookspec
def quorum_register_tools(registry: ToolRegistry) -> None:
    """Register tool sources, or single tools.

    Called: once at startup.
    Params: ``registry.add_source(name, factory)`` where ``factory(context)`` returns a
    ``ToolSource``; or ``registry.add_tool(definition, function)`` for one plain (async) function.
    Result: none.
    """


@hookspec
def quorum_register_reviewers(registry: ReviewerRegistry) -> None:
    """Register reviewers (``ActionReviewer`` factories) usable in the review pipeline.

    Called: once at startup.
    Params: ``registry.add(name, factory)``; ``factory(context)`` returns an ``ActionReviewer``.
    Result: none.
    """


@hookspec
def quorum_register_stores(registry: StoreRegistry) -> None:
    """Register run-log storage backends.

    Called: once at startup.
    Params: ``registry.add(name, factory)``; ``factory(context)`` returns a run store.
    Result: none.
    """


@hookspec
def quorum_register_commands(cli: CommandRegistry) -> None:
    """Add subcommands to the ``quorum`` CLI.

    Called: when the CLI resolves a command name it does not know itself (so ``quorum --help``
    stays fast), and by ``quorum plugins list``.
    Params: ``cli.add(command)`` with a ``click.Command``.
    Result: none. Names of built-in commands are rejected.
    """
