"""``[providers.NAME]`` settings of kind ``anthropic``: the Anthropic Messages API."""

from __future__ import annotations

from typing import Literal

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
        cache_ttl: how long a cache entry lives: ``5m`` (the default; each read renews it) or
            ``1h`` (sent as ``"ttl": "1h"``; a write costs 2× input instead of 1.25×: worth it
            when a run waits longer than 5 minutes, for a person's approval say).
    """

    api_key_env: str = "ANTHROPIC_API_KEY"
    max_tokens: int = Field(8192, ge=1)
    thinking: ThinkingMode = "auto"
    cache_ttl: Literal["5m", "1h"] = "5m"

    def long_cache_writes(self) -> bool:
        """``cache_ttl = "1h"``: writes are billed at the one-hour price."""
        return self.cache == "auto" and self.cache_ttl == "1h"
