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
from quorum.infrastructure.providers.openai.responses_api import ResponsesApi
from quorum.infrastructure.providers.openai.settings import OpenAISettings
from quorum.infrastructure.providers.wire_api import WireApi


class OpenAIChatGateway(SdkGateway[OpenAISettings]):
    """Opens sessions on OpenAI or an OpenAI-compatible server: Chat Completions, or the Responses API.

    The instance's ``api`` setting chooses (``"chat"``, the default, or ``"responses"``).
    """

    api = ChatCompletionsApi

    @classmethod
    def api_for(cls, settings: OpenAISettings) -> type[WireApi[OpenAISettings]]:
        return ResponsesApi if settings.api == "responses" else ChatCompletionsApi


@hookimpl
def quorum_register_providers(registry: ProviderRegistry) -> None:
    """Register the ``openai`` kind."""
    register_sdk_kind(
        registry,
        "openai",
        OpenAIChatGateway,
        OpenAISettings,
        'OpenAI Chat Completions or the Responses API (api = "responses"): api.openai.com, or any '
        "OpenAI-compatible server via base_url.",
    )
