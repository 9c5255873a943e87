"""``[providers.NAME]`` settings of kind ``openai``: the OpenAI API or an OpenAI-compatible server."""

from __future__ import annotations

from pydantic import Field, SecretStr

from quorum.infrastructure.pricing import PricedSettings, TokenPrices


class OpenAISettings(PricedSettings):
    """One OpenAI (or OpenAI-compatible) provider instance.

    Attributes:
        api_key: the key itself (prefer ``api_key_env``; never shown by ``config show``).
        api_key_env: the environment variable holding the key.
        base_url: the endpoint including ``/v1`` (e.g. ``http://localhost:11434/v1`` for Ollama);
            unset means the SDK default, or ``OPENAI_BASE_URL`` when that is set. With a base URL
            and no key, a placeholder key is sent (local servers need none).
        max_retries: retries of 408/409/429/5xx and connection errors, with the SDK's backoff; a
            ``Retry-After`` over 60 s is not waited for (the error says so).
        timeout: seconds to wait for a response (connecting is capped at 10 s): for the whole body
            of a plain response, and between two events of a stream (keepalive comments do not count).
        max_tokens: output token cap per response; unset lets the server decide. Sent as
            ``max_completion_tokens`` to the OpenAI API and as ``max_tokens`` to a custom
            ``base_url`` (what compatible servers understand).
        headers: extra HTTP headers sent with every request.
        images: whether the models take image input; false sends a note instead of the images
            tools return (for text-only models of compatible servers, which refuse images).
        prices: ``{ input_per_mtok, output_per_mtok }`` in USD, for every model of this instance;
            unset, the ``genai-prices`` table prices the models it knows (for a custom
            ``base_url``, only an endpoint it knows).
    """

    api_key: SecretStr | None = None
    api_key_env: str = "OPENAI_API_KEY"
    base_url: str | None = None
    max_retries: int = Field(2, ge=0)
    timeout: float = Field(600.0, gt=0)
    max_tokens: int | None = Field(None, ge=1)
    headers: dict[str, str] = Field(default_factory=dict)
    images: bool = True
    prices: TokenPrices | None = None
