"""The ``openai`` provider kind: Chat Completions with native tool use, streaming, error translation."""

from quorum.infrastructure.providers.openai.gateway import OpenAIChatGateway
from quorum.infrastructure.providers.openai.session import OpenAIChatSession
from quorum.infrastructure.providers.openai.settings import OpenAISettings

__all__ = ["OpenAIChatGateway", "OpenAIChatSession", "OpenAISettings"]
