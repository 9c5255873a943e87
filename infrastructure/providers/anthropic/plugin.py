"""Built-in plugin registering the ``anthropic`` provider kind (the Messages API).

A gateway class naming the ``WireApi`` and the kind registered with its settings (as
``openai/plugin.py``). Importing this module must stay cheap: the SDK is imported when a session
is opened.
"""

from __future__ import annotations

from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.registries import ProviderRegistry
from quorum.infrastructure.providers.anthropic.messages_api import MessagesApi
from quorum.infrastructure.providers.anthropic.settings import AnthropicSettings
from quorum.infrastructure.providers.gateway_base import SdkGateway, register_sdk_kind


class AnthropicGateway(SdkGateway[AnthropicSettings]):
    """Opens sessions on the Anthropic Messages API (or a server speaking it)."""

    api = MessagesApi


@hookimpl
def quorum_register_providers(registry: ProviderRegistry) -> None:
    """Register the ``anthropic`` kind."""
    register_sdk_kind(
        registry, "anthropic", AnthropicGateway, AnthropicSettings, "Anthropic Messages API (Claude models)."
    )
