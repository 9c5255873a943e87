"""Built-in plugin registering the ``openai`` provider kind (OpenAI API and compatible servers).

The whole registration of a provider API: a gateway class naming its ``WireApi`` and the kind
registered with its settings. Importing this module must stay cheap: the SDK is imported when a
session is opened.
"""

from __future__ import annotations

from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.registries import ProviderRegistry
from quorum.infrastructure.providers.gateway_base import SdkGateway, register_sdk_kind
from quorum.infrastructure.providers.openai.chat_api import ChatCompletionsApi
from quorum.infrastructure.providers.openai.settings import OpenAISettings


class OpenAIChatGateway(SdkGateway[OpenAISettings]):
    """Opens sessions on the Chat Completions API of OpenAI or an OpenAI-compatible server."""

    api = ChatCompletionsApi


@hookimpl
def quorum_register_providers(registry: ProviderRegistry) -> None:
    """Register the ``openai`` kind."""
    register_sdk_kind(
        registry,
        "openai",
        OpenAIChatGateway,
        OpenAISettings,
        "OpenAI Chat Completions: api.openai.com, or any OpenAI-compatible server via base_url.",
    )
