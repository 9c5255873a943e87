"""The ``openai`` provider kind: Chat Completions (its ``WireApi``, ``chat_api.py``) on the shared core."""

from quorum.infrastructure.providers.openai.chat_api import ChatCompletionsApi
from quorum.infrastructure.providers.openai.plugin import OpenAIChatGateway
from quorum.infrastructure.providers.openai.settings import OpenAISettings

__all__ = ["ChatCompletionsApi", "OpenAIChatGateway", "OpenAISettings"]
