"""``[providers.NAME]`` settings of kind ``anthropic``: the Anthropic Messages API."""

from __future__ import annotations

from pydantic import Field

from quorum.infrastructure.providers.anthropic.thinking import ThinkingMode
from quorum.infrastructure.providers.settings_base import SdkProviderSettings


class AnthropicSettings(SdkProviderSettings):
    """One Anthropic provider instance; the shared fields are ``SdkProviderSettings``'.

    Attributes:
        api_key_env: ``ANTHROPIC_API_KEY`` unless set.
        base_url: the endpoint *without* ``/v1``; unset means the SDK default, or
            ``ANTHROPIC_BASE_URL`` when that is set. With a base URL and no key, a placeholder key
            is sent.
        max_retries: as for every kind, and 529 (overloaded) is retried too.
        max_tokens: output token cap per response (the Messages API requires one); with
            reasoning on, the level's thinking budget is added to it.
        thinking: how ``[agent] reasoning`` is asked for: ``budget`` (``thinking`` enabled with
            ``budget_tokens``), ``adaptive`` (adaptive thinking with an effort), ``auto`` (adaptive
            for the models known to take it, else a budget).
    """

    api_key_env: str = "ANTHROPIC_API_KEY"
    max_tokens: int = Field(8192, ge=1)
    thinking: ThinkingMode = "auto"
