"""OpenAIChatGateway: one ``[providers.NAME]`` instance of kind ``openai``."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from quorum.application.ports.llm import LlmSession
from quorum.domain.messages import Message
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.gateway_base import SdkGateway
from quorum.infrastructure.providers.openai.session import OpenAIChatSession


class OpenAIChatGateway(SdkGateway):
    """Opens ``OpenAIChatSession``s on the OpenAI API or an OpenAI-compatible server."""

    sdk_name = "openai"
    base_url_env = "OPENAI_BASE_URL"
    default_base_url = "https://api.openai.com/v1"

    def _new_client(self, sdk: ModuleType, api_key: str, base_url: str | None) -> Any:
        return sdk.AsyncOpenAI(
            api_key=api_key,
            base_url=base_url,
            max_retries=self.settings.max_retries,
            timeout=self.timeout(),
            default_headers=self.settings.headers or None,
            http_client=self.http_client(sdk),
        )

    def _new_session(
        self,
        sdk: ModuleType,
        model: str,
        system_prompt: str | None,
        history: Sequence[Message],
        errors: ErrorTranslator,
    ) -> LlmSession:
        max_tokens = None
        if self.settings.max_tokens is not None:
            # the OpenAI API replaced max_tokens (refused by reasoning models); compatibles know the old name
            field = "max_tokens" if self._explicit_base_url else "max_completion_tokens"
            max_tokens = (field, self.settings.max_tokens)
        return OpenAIChatSession(
            client=self.client,
            model=model,
            system_prompt=system_prompt,
            history=history,
            errors=errors,
            sdk=sdk,
            max_tokens=max_tokens,
            images=self.settings.images,
        )
