"""Built-in plugin registering the ``anthropic`` provider kind (the Messages API).

Importing this module must stay cheap: the SDK is imported when a session is opened.
"""

from __future__ import annotations

from quorum.infrastructure.plugins.contracts import ProviderContext
from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.registries import ProviderRegistry
from quorum.infrastructure.providers.anthropic.gateway import AnthropicGateway
from quorum.infrastructure.providers.anthropic.settings import AnthropicSettings


def create_gateway(context: ProviderContext) -> AnthropicGateway:
    """Anthropic Messages API (Claude models)."""
    settings = context.settings if isinstance(context.settings, AnthropicSettings) else AnthropicSettings()
    return AnthropicGateway(context.name, settings, context.env, context.keys)


@hookimpl
def quorum_register_providers(registry: ProviderRegistry) -> None:
    """Register the ``anthropic`` kind."""
    registry.add("anthropic", create_gateway, settings=AnthropicSettings)
