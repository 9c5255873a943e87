"""The ``anthropic`` provider kind: Messages API with native tool use, streaming, error translation."""

from quorum.infrastructure.providers.anthropic.gateway import AnthropicGateway
from quorum.infrastructure.providers.anthropic.session import AnthropicMessagesSession
from quorum.infrastructure.providers.anthropic.settings import AnthropicSettings

__all__ = ["AnthropicGateway", "AnthropicMessagesSession", "AnthropicSettings"]
