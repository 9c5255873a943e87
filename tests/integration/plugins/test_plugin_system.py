"""Plugin loading, registrars and the hook contract."""

from __future__ import annotations

import inspect
import subprocess
import sys
from typing import Any

import pytest

from quorum.domain import RiskLevel, ToolDefinition
from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.plugins import BUILTIN_PLUGINS, hookimpl, hookspecs, load_plugins
from quorum.infrastructure.plugins.registries import CommandRegistry


class ToolPlugin:
    @hookimpl
    def quorum_register_tools(self, registry: Any) -> None:
        registry.add_tool(ToolDefinition(name="shout", risk=RiskLevel.LOW), lambda args: "HEY")


class ProviderPlugin:
    def __init__(self, kind: str) -> None:
        self.kind = kind

    @hookimpl
    def quorum_register_providers(self, registry: Any) -> None:
        registry.add(self.kind, lambda context: None)


def test_builtins_load_from_the_explicit_tuple() -> None:
    catalog = load_plugins(autoload=False)
    names = [p.name for p in catalog.plugins]
    assert names == [name for name, _ in BUILTIN_PLUGINS]
    assert {"test", "scripted", "openai", "anthropic"} <= set(catalog.providers.names())


def test_every_builtin_plugin_module_imports() -> None:
    import importlib

    for _, module in BUILTIN_PLUGINS:
        importlib.import_module(module)


def test_registrations_are_attributed_to_their_plugin() -> None:
    catalog = load_plugins(autoload=False, extra=[("shouter", ToolPlugin())])
    (reg,) = [r for r in catalog.registrations() if r.name == "shout"]
    assert (reg.kind, reg.plugin) == ("tool", "shouter")
    assert catalog.providers.get("test").plugin == "quorum.offline"


def test_duplicate_registration_names_both_plugins() -> None:
    with pytest.raises(
        ConfigurationError,
        match="provider 'test' is registered twice: by plugin 'quorum.offline' and by plugin 'impostor'",
    ):
        load_plugins(autoload=False, extra=[("impostor", ProviderPlugin("test"))])


def test_invalid_names_are_rejected() -> None:
    with pytest.raises(ConfigurationError, match="invalid name"):
        load_plugins(autoload=False, extra=[("bad", ProviderPlugin("has space"))])


def test_blocked_builtin_is_not_loaded() -> None:
    catalog = load_plugins(autoload=False, blocked=["quorum.offline"])
    assert "test" not in catalog.providers.names()
    assert [p.blocked for p in catalog.plugins if p.name == "quorum.offline"] == [True]


def test_unknown_hook_is_a_clear_error() -> None:
    class Typo:
        @hookimpl
        def quorum_register_tool(self, registry: Any) -> None:  # missing 's'
            pass

    with pytest.raises(ConfigurationError, match="unknown hook"):
        load_plugins(autoload=False, extra=[("typo", Typo())])


def test_a_failing_hook_names_the_plugin() -> None:
    class Broken:
        @hookimpl
        def quorum_register_providers(self, registry: Any) -> None:
            raise RuntimeError("boom")

    with pytest.raises(
        ConfigurationError, match="plugin 'broken' failed in quorum_register_providers: RuntimeError: boom"
    ):
        load_plugins(autoload=False, extra=[("broken", Broken())])


def test_config_section_cannot_take_a_core_key() -> None:
    from pydantic import BaseModel

    class Grab:
        @hookimpl
        def quorum_register_config_sections(self, registry: Any) -> None:
            registry.add("agent", BaseModel)

    with pytest.raises(ConfigurationError, match=r"declared config section \[agent\], which Quorum owns"):
        load_plugins(autoload=False, reserved_sections=frozenset({"agent"}), extra=[("grab", Grab())])


def test_the_built_in_plugins_declare_the_feature_sections_as_any_plugin_does() -> None:
    from quorum.infrastructure.review.settings import ReviewSettings

    catalog = load_plugins(autoload=False)
    declared = {e.name: e.plugin for e in catalog.config_sections.entries()}
    assert declared == {
        "tools": "quorum.builtin_tools",
        "mcp": "quorum.mcp",
        "review": "quorum.review",
        "storage": "quorum.sqlite",
        "engine": "quorum.engine",
        "secrets": "quorum.secrets",
        "serve": "quorum.serve",
        "telemetry": "quorum.telemetry",
        "checkpoints": "quorum.checkpoints",
    }
    entry = catalog.config_sections.get("review")
    assert entry is not None and entry.value is ReviewSettings

    class Steal:
        @hookimpl
        def quorum_register_config_sections(self, registry: Any) -> None:
            registry.add("review", ReviewSettings)

    with pytest.raises(
        ConfigurationError, match="'review' is registered twice: by plugin 'quorum.review' and by plugin 'steal'"
    ):
        load_plugins(autoload=False, extra=[("steal", Steal())])

    class Alias:
        @hookimpl
        def quorum_register_config_sections(self, registry: Any) -> None:
            registry.add("panel", ReviewSettings)

    with pytest.raises(ConfigurationError, match=r"section \[panel\] with the model of \[review\]"):
        load_plugins(autoload=False, extra=[("alias", Alias())])


def test_plugin_commands_cannot_replace_builtins() -> None:
    import click

    registry = CommandRegistry(frozenset({"run"}))
    registry.current_plugin = "p"
    with pytest.raises(ConfigurationError, match="tried to replace built-in command 'run'"):
        registry.add(click.Command("run"))
    registry.add(click.Command("hello"))
    assert registry.names() == ["hello"]


def test_every_hookspec_is_documented_and_called() -> None:
    specs = {n: f for n, f in vars(hookspecs).items() if n.startswith("quorum_") and callable(f)}
    assert specs, "no hookspecs found"
    for name, func in specs.items():
        doc = inspect.getdoc(func) or ""
        assert "Called:" in doc and "Params:" in doc and "Result:" in doc, name

    called: list[str] = []

    class Spy:
        pass

    for name in specs:

        def impl(registry: Any = None, cli: Any = None, _name: str = name) -> None:
            called.append(_name)

        impl.__name__ = name
        setattr(Spy, name, staticmethod(hookimpl(specname=name)(impl)))
    catalog = load_plugins(autoload=False, extra=[("spy", Spy())])
    catalog.commands(frozenset())
    assert sorted(set(called)) == sorted(specs)


def test_no_plugin_manager_is_created_at_import() -> None:
    code = (
        "import gc, pluggy\n"
        "import quorum.infrastructure.plugins, quorum.composition.container\n"
        "print(sum(isinstance(o, pluggy.PluginManager) for o in gc.get_objects()))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "0"


def test_registering_plugins_imports_no_sdk() -> None:
    code = (
        "import sys\n"
        "from quorum.infrastructure.plugins import load_plugins\n"
        "load_plugins(autoload=False)\n"
        "print(sorted(m for m in ('openai', 'anthropic', 'mcp') if m in sys.modules))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
