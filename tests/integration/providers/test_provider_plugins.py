"""The provider kinds as built-in plugins: cheap to import, registered with their settings models."""

from __future__ import annotations

import subprocess
import sys

import pluggy
import pytest

from quorum.application.ports.llm import LlmSession
from quorum.domain.errors import UsageError
from quorum.infrastructure.plugins import hookspecs
from quorum.infrastructure.plugins.contracts import ProviderContext, ProviderGateway
from quorum.infrastructure.plugins.manager import BUILTIN_PLUGINS, call_registration_hook
from quorum.infrastructure.plugins.registries import ProviderRegistry
from quorum.infrastructure.providers.anthropic import AnthropicSettings
from quorum.infrastructure.providers.anthropic import plugin as anthropic_plugin
from quorum.infrastructure.providers.openai import OpenAISettings
from quorum.infrastructure.providers.openai import plugin as openai_plugin

PLUGIN_MODULES = [anthropic_plugin.__name__, openai_plugin.__name__]


def test_importing_the_plugins_does_not_import_the_sdks() -> None:
    code = (
        "import sys\n"
        + "".join(f"import {m}\n" for m in PLUGIN_MODULES)
        + "print(sorted(m for m in ('openai', 'anthropic', 'httpx2') if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=60)
    assert out.stdout.strip() == "[]"


def test_both_kinds_are_builtin_plugins() -> None:
    assert set(PLUGIN_MODULES) <= {module for _, module in BUILTIN_PLUGINS}


def _registry() -> ProviderRegistry:
    pm = pluggy.PluginManager(hookspecs.PROJECT_NAME)
    pm.add_hookspecs(hookspecs)
    pm.register(openai_plugin, name="quorum.openai")
    pm.register(anthropic_plugin, name="quorum.anthropic")
    registry = ProviderRegistry()
    call_registration_hook(pm, "quorum_register_providers", "registry", registry)
    return registry


def test_registration_names_the_kind_its_settings_and_plugin() -> None:
    registry = _registry()
    openai_entry, anthropic_entry = registry.get("openai"), registry.get("anthropic")
    assert openai_entry is not None and anthropic_entry is not None
    assert (openai_entry.settings, openai_entry.plugin) == (OpenAISettings, "quorum.openai")
    assert (anthropic_entry.settings, anthropic_entry.plugin) == (AnthropicSettings, "quorum.anthropic")
    assert openai_entry.description and anthropic_entry.description


@pytest.mark.parametrize(
    ("kind", "settings"),
    [
        ("openai", OpenAISettings(base_url="http://127.0.0.1:9/v1")),
        ("anthropic", AnthropicSettings(api_key="k")),
    ],
)
async def test_factories_return_gateways_whose_sessions_follow_the_port(kind: str, settings: object) -> None:
    entry = _registry().get(kind)
    assert entry is not None
    gateway = entry.value(ProviderContext(name="p", kind=kind, settings=settings, env={}))

    assert isinstance(gateway, ProviderGateway)
    session = gateway.session("some-model", "system")
    assert isinstance(session, LlmSession)
    assert session.model == "some-model" and session.history() == []
    with pytest.raises(UsageError, match="p:MODEL"):
        gateway.session("")
    await gateway.aclose()  # no client was made: nothing to close, and no error


def test_settings_defaults() -> None:
    assert OpenAISettings().api_key_env == "OPENAI_API_KEY"
    assert AnthropicSettings().api_key_env == "ANTHROPIC_API_KEY"
    assert AnthropicSettings().max_tokens == 8192
    assert OpenAISettings().max_tokens is None
