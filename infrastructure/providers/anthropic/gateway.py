"""AnthropicGateway: one ``[providers.NAME]`` instance of kind ``anthropic``."""

from __future__ import annotations

from collections.abc import Sequence
from types import ModuleType
from typing import Any

from quorum.application.ports.llm import LlmSession
from quorum.domain.messages import Message
from quorum.infrastructure.providers.anthropic.session import AnthropicMessagesSession
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.gateway_base import SdkGateway


class AnthropicGateway(SdkGateway):
    """Opens ``AnthropicMessagesSession``s on the Anthropic API (or a server speaking it)."""

    sdk_name = "anthropic"
    base_url_env = "ANTHROPIC_BASE_URL"
    default_base_url = "https://api.anthropic.com"

    def _new_client(self, sdk: ModuleType, api_key: str, base_url: str | None) -> Any:
        return sdk.AsyncAnthropic(
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
        return AnthropicMessagesSession(
            client=self.client,
            model=model,
            system_prompt=system_prompt,
            history=history,
            errors=errors,
            sdk=sdk,
            max_tokens=self.settings.max_tokens,
            timeout=self.timeout(),
        )
