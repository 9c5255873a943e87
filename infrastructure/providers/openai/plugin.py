"""Built-in plugin registering the ``openai`` provider kind (OpenAI API and compatible servers).

Importing this module must stay cheap: the SDK is imported when a session is opened.
"""

from __future__ import annotations

from quorum.infrastructure.plugins.contracts import ProviderContext
from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.registries import ProviderRegistry
from quorum.infrastructure.providers.openai.gateway import OpenAIChatGateway
from quorum.infrastructure.providers.openai.settings import OpenAISettings


def create_gateway(context: ProviderContext) -> OpenAIChatGateway:
    """OpenAI Chat Completions: api.openai.com, or any OpenAI-compatible server via base_url."""
    settings = context.settings if isinstance(context.settings, OpenAISettings) else OpenAISettings()
    return OpenAIChatGateway(context.name, settings, context.env, context.keys)


@hookimpl
def quorum_register_providers(registry: ProviderRegistry) -> None:
    """Register the ``openai`` kind."""
    registry.add("openai", create_gateway, settings=OpenAISettings)
