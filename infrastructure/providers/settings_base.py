"""The settings every SDK-backed provider kind shares: its key, endpoint, retries, timeout, cap, headers.

A kind's section (``OpenAISettings``, ``AnthropicSettings``) subclasses ``SdkProviderSettings``,
sets the default of ``api_key_env`` (and of ``max_tokens`` when its API requires a cap) and adds the
fields only its API has. A field a subclass redeclares keeps its place, so every kind lists the
shared fields in the same order.
"""

from __future__ import annotations

from typing import Any, Literal

from pydantic import Field, SecretStr

from quorum.infrastructure.pricing import PricedSettings, TokenPrices

CONNECT_TIMEOUT = 10.0
"""Longest wait, in seconds, for a connection to the provider."""


class SdkProviderSettings(PricedSettings):
    """One provider instance reached through a vendor SDK.

    Attributes:
        api_key: the key itself (prefer ``api_key_env``; never shown by ``config show``).
        api_key_env: the environment variable holding the key (each kind names its own).
        base_url: the endpoint; unset means the SDK default, or the kind's ``…_BASE_URL`` variable
            when that is set. With a base URL and no key, a placeholder key is sent.
        max_retries: retries of 408/409/429/5xx and connection errors, with the SDK's backoff; a
            ``Retry-After`` over 60 s is not waited for (the error says so).
        timeout: seconds to wait for a response (connecting is capped at 10 s): for the whole body
            of a plain response, and between two events of a stream (keepalive comments do not count).
        max_tokens: output token cap per response; unset lets the server decide.
        headers: extra HTTP headers sent with every request.
        prices: ``{ input_per_mtok, output_per_mtok, cache_read_per_mtok, cache_write_per_mtok }``
            in USD, for every model of this instance (the cache prices optional); unset, the
            ``genai-prices`` table prices the models it knows (for a custom ``base_url``, only an
            endpoint it knows).
        cache: ``auto`` (the default) asks the provider to cache the requests' stable prefix
            (Anthropic: ``cache_control`` breakpoints; OpenAI: a ``prompt_cache_key`` per
            conversation); ``off`` sends neither (for a compatible server that refuses them).
    """

    api_key: SecretStr | None = None
    api_key_env: str
    base_url: str | None = None
    max_retries: int = Field(2, ge=0)
    timeout: float = Field(600.0, gt=0)
    max_tokens: int | None = Field(None, ge=1)
    headers: dict[str, str] = Field(default_factory=dict)
    prices: TokenPrices | None = None
    cache: Literal["auto", "off"] = "auto"

    def sdk_timeout(self) -> Any:
        """The SDKs' ``httpx2.Timeout``: ``timeout`` to read, at most ``CONNECT_TIMEOUT`` to connect."""
        import httpx2  # a dependency of both SDKs, imported by them already

        return httpx2.Timeout(self.timeout, connect=min(CONNECT_TIMEOUT, self.timeout))
