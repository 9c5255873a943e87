"""The ``openai`` provider kind on the shared core: Chat Completions or the Responses API.

``chat_api.py`` and ``responses_api.py`` are the two ``WireApi``s; ``[providers.NAME] api`` chooses.
"""

from quorum.infrastructure.providers.openai.chat_api import ChatCompletionsApi
from quorum.infrastructure.providers.openai.plugin import OpenAIChatGateway
from quorum.infrastructure.providers.openai.responses_api import ResponsesApi
from quorum.infrastructure.providers.openai.settings import OpenAISettings

__all__ = ["ChatCompletionsApi", "OpenAIChatGateway", "OpenAISettings", "ResponsesApi"]
