"""``[providers.NAME]`` settings of kind ``openai``: the OpenAI API or an OpenAI-compatible server."""

from __future__ import annotations

from typing import Literal

from quorum.infrastructure.providers.settings_base import SdkProviderSettings


class OpenAISettings(SdkProviderSettings):
    """One OpenAI (or OpenAI-compatible) provider instance; the shared fields are ``SdkProviderSettings``'.

    Attributes:
        api_key_env: ``OPENAI_API_KEY`` unless set.
        base_url: the endpoint including ``/v1`` (e.g. ``http://localhost:11434/v1`` for Ollama);
            unset means the SDK default, or ``OPENAI_BASE_URL`` when that is set. With a base URL
            and no key, a placeholder key is sent (local servers need none).
        max_tokens: output token cap per response; unset lets the server decide. Sent as
            ``max_completion_tokens`` to the OpenAI API and as ``max_tokens`` to a custom
            ``base_url`` (what compatible servers understand).
        api: which API the instance speaks: ``"chat"`` (Chat Completions, ``POST /chat/completions``,
            what compatible servers speak) or ``"responses"`` (the Responses API, ``POST /responses``:
            OpenAI's reasoning models keep their reasoning between turns only there).
        images: whether the models take image input; false sends a note instead of the images
            tools return (for text-only models of compatible servers, which refuse images).
    """

    api_key_env: str = "OPENAI_API_KEY"
    images: bool = True
    api: Literal["chat", "responses"] = "chat"
