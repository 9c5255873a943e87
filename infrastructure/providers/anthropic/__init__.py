"""The ``anthropic`` provider kind: the Messages API (its ``WireApi``, ``messages_api.py``) on the shared core."""

from quorum.infrastructure.providers.anthropic.messages_api import MessagesApi
from quorum.infrastructure.providers.anthropic.plugin import AnthropicGateway
from quorum.infrastructure.providers.anthropic.settings import AnthropicSettings

__all__ = ["AnthropicGateway", "AnthropicSettings", "MessagesApi"]
