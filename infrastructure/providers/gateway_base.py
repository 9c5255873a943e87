"""What the SDK-backed provider gateways share: key resolution, one client per event loop, errors."""

from __future__ import annotations

import asyncio
import importlib
from abc import ABC, abstractmethod
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import Any
from weakref import WeakKeyDictionary

from quorum.application.ports.llm import LlmSession
from quorum.domain.errors import ConfigurationError, UsageError
from quorum.domain.messages import Message
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.retry_after import refuse_long_retry_after

PLACEHOLDER_KEY = "not-needed"
"""Sent to a custom ``base_url`` when no key is configured: local servers need none, SDKs insist."""


class SdkGateway(ABC):
    """A ``ProviderGateway`` for one ``[providers.NAME]`` instance backed by a vendor SDK.

    Creating it is cheap and imports nothing; ``session`` imports the SDK, checks the key (raising
    ``ConfigurationError`` naming the variable to set) and returns a session. Clients are made on a
    session's first request, one per event loop (an async client's connections belong to the loop
    that opened them), and shared by the sessions of that loop. ``aclose`` closes the client of the
    running loop.

    Args:
        name: the instance name.
        settings: the validated section (an ``OpenAISettings`` or ``AnthropicSettings``).
        env: the environment as the container saw it; keys and base URLs are read from it only.
    """

    sdk_name: str
    base_url_env: str
    default_base_url: str

    def __init__(self, name: str, settings: Any, env: Mapping[str, str]) -> None:
        self.name = name
        self.settings = settings
        self._env = env
        self._explicit_base_url: str | None = settings.base_url or env.get(self.base_url_env) or None
        self.base_url = (self._explicit_base_url or self.default_base_url).rstrip("/")
        self._clients: WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = WeakKeyDictionary()
        self._sdk: ModuleType | None = None
        self._api_key: str | None = None

    def session(self, model: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> LlmSession:
        """A session on ``model``. Raises UsageError (no model) or ConfigurationError (no key)."""
        if not model:
            raise UsageError(f"provider {self.name!r} needs a model name: use {self.name}:MODEL")
        if self._api_key is None:
            self._api_key = self._resolve_key()
        if self._sdk is None:
            self._sdk = importlib.import_module(self.sdk_name)
        errors = ErrorTranslator(
            provider=self.name,
            model=model,
            base_url=self.base_url,
            key_env=self.settings.api_key_env,
            max_retries=self.settings.max_retries,
            timeout=self.settings.timeout,
        )
        return self._new_session(self._sdk, model, system_prompt, history, errors)

    def client(self) -> Any:
        """The SDK client of the running event loop, made on first use."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            assert self._sdk is not None and self._api_key is not None  # set by session()
            client = self._clients[loop] = self._new_client(self._sdk, self._api_key, self._explicit_base_url)
        return client

    async def aclose(self) -> None:
        """Close the running loop's client and its connections. Idempotent."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    def timeout(self) -> Any:
        """The SDK timeout: ``settings.timeout`` to read, at most 10 s to connect."""
        import httpx2  # a dependency of both SDKs, imported by them already

        return httpx2.Timeout(self.settings.timeout, connect=min(10.0, self.settings.timeout))

    def http_client(self, sdk: ModuleType) -> Any:
        """The SDK's default async HTTP client, with the hook that refuses long ``Retry-After`` waits."""
        return sdk.DefaultAsyncHttpxClient(event_hooks={"response": [refuse_long_retry_after]})

    def _resolve_key(self) -> str:
        if self.settings.api_key is not None:
            return str(self.settings.api_key.get_secret_value())
        key = self._env.get(self.settings.api_key_env)
        if key:
            return key
        if self._explicit_base_url is not None:
            return PLACEHOLDER_KEY
        raise ConfigurationError(
            f"no API key for provider {self.name!r}: set the environment variable "
            f"{self.settings.api_key_env} (or api_key / api_key_env in [providers.{self.name}])",
            key=f"providers.{self.name}.api_key",
        )

    @abstractmethod
    def _new_client(self, sdk: ModuleType, api_key: str, base_url: str | None) -> Any:
        """A new async SDK client (``base_url=None`` keeps the SDK default)."""

    @abstractmethod
    def _new_session(
        self,
        sdk: ModuleType,
        model: str,
        system_prompt: str | None,
        history: Sequence[Message],
        errors: ErrorTranslator,
    ) -> LlmSession:
        """A new session of this provider."""
