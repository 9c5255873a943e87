"""SdkGateway: a provider instance reached through a vendor SDK, whatever API it speaks.

Key resolution, one client per event loop (made with the retry policy and the timeout), error
translation, the model list and opening sessions are written here once; a provider kind's gateway
only names its ``WireApi`` (``wire_api.py``) and its settings class.
"""

from __future__ import annotations

import asyncio
import importlib
from collections.abc import Mapping, Sequence
from types import ModuleType
from typing import TYPE_CHECKING, Any, Generic
from weakref import WeakKeyDictionary

from quorum.application.ports.llm import LlmSession
from quorum.domain.errors import ConfigurationError, UsageError
from quorum.domain.messages import Message
from quorum.infrastructure.providers.errors import ErrorTranslator
from quorum.infrastructure.providers.retry_after import refuse_long_retry_after
from quorum.infrastructure.providers.session_base import ProviderSession
from quorum.infrastructure.providers.wire_api import S, WireApi

if TYPE_CHECKING:
    from quorum.infrastructure.keys.store import KeyLookup
    from quorum.infrastructure.plugins.contracts import ProviderContext
    from quorum.infrastructure.plugins.registries import ProviderRegistry

PLACEHOLDER_KEY = "not-needed"
"""Sent to a custom ``base_url`` when no key is configured: local servers need none, SDKs insist."""


class SdkGateway(Generic[S]):
    """A ``ProviderGateway`` for one ``[providers.NAME]`` instance backed by a vendor SDK.

    Creating it is cheap and imports nothing; ``session`` imports the SDK, checks the key (raising
    ``ConfigurationError`` naming the variable to set) and returns a ``ProviderSession`` speaking
    the gateway's API. Clients are made on a session's first request, one per event loop (an async
    client's connections belong to the loop that opened them), and shared by the sessions of that
    loop. ``aclose`` closes the client of the running loop.

    A subclass sets ``api``, the ``WireApi`` class of the API it speaks, or overrides ``api_for``
    when the instance's settings choose among several (``[providers.NAME] api``).

    Args:
        name: the instance name.
        settings: the validated section of the kind (an ``SdkProviderSettings``).
        env: the environment as the container saw it; keys and base URLs are read from it only.
        keys: keys stored with ``quorum keys set``. The key is, in order: ``api_key`` in the
            section, the ``api_key_env`` variable, the stored key of this instance's name.
    """

    api: type[WireApi[S]]

    def __init__(self, name: str, settings: S, env: Mapping[str, str], keys: KeyLookup | None = None) -> None:
        self.name = name
        self.settings = settings
        self._env = env
        self._keys = keys
        self.api = self.api_for(settings)
        self._explicit_base_url: str | None = settings.base_url or env.get(self.api.base_url_env) or None
        self.base_url = (self._explicit_base_url or self.api.default_base_url).rstrip("/")
        self._wire_api = self.api(settings, custom_endpoint=self._explicit_base_url is not None)
        self._clients: WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = WeakKeyDictionary()
        self._sdk: ModuleType | None = None
        self._api_key: str | None = None

    @classmethod
    def api_for(cls, settings: S) -> type[WireApi[S]]:
        """The ``WireApi`` class an instance with ``settings`` speaks: ``api`` unless a kind chooses."""
        return cls.api

    def session(self, model: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()) -> LlmSession:
        """A session on ``model``. Raises UsageError (no model) or ConfigurationError (no key)."""
        if not model:
            raise UsageError(f"provider {self.name!r} needs a model name: use {self.name}:MODEL")
        if self._api_key is None:
            self._api_key = self._resolve_key()
        if self._sdk is None:
            self._sdk = importlib.import_module(self.api.sdk)
        return ProviderSession(
            api=self._wire_api,
            client=self.client,
            model=model,
            system_prompt=system_prompt,
            history=history,
            errors=self._errors(model),
            sdk=self._sdk,
        )

    def client(self) -> Any:
        """The SDK client of the running event loop, made on first use."""
        loop = asyncio.get_running_loop()
        client = self._clients.get(loop)
        if client is None:
            assert self._sdk is not None and self._api_key is not None  # set by session()
            client = self._clients[loop] = getattr(self._sdk, self.api.client_class)(
                api_key=self._api_key,
                base_url=self._explicit_base_url,  # None keeps the SDK default
                max_retries=self.settings.max_retries,
                timeout=self.timeout(),
                default_headers=self.settings.headers or None,
                http_client=self.http_client(self._sdk),
            )
        return client

    async def aclose(self) -> None:
        """Close the running loop's client and its connections. Idempotent."""
        client = self._clients.pop(asyncio.get_running_loop(), None)
        if client is not None:
            await client.close()

    def timeout(self) -> Any:
        """The SDK timeout: ``settings.timeout`` to read, at most 10 s to connect."""
        return self.settings.sdk_timeout()

    def http_client(self, sdk: ModuleType) -> Any:
        """The SDK's default async HTTP client, with the hook that refuses long ``Retry-After`` waits."""
        return sdk.DefaultAsyncHttpxClient(event_hooks={"response": [refuse_long_retry_after]})

    def key_source(self) -> str | None:
        """Where the key comes from (``config``, ``env VAR``, ``keyring``, ``key file``), None if nowhere.

        Never the key itself; reading a stored key may query the keyring.
        """
        found = self._find_key()
        return None if found is None else found[1]

    async def list_models(self) -> list[str]:
        """The names the provider's ``GET /v1/models`` lists (both SDKs page through it)."""
        self.session("models")  # checks the key, imports the SDK
        assert self._sdk is not None
        errors = self._errors("")
        try:
            return sorted([str(model.id) async for model in self.client().models.list()])
        except Exception as error:
            translated = errors.translate(error, self._sdk)
            if translated is None:  # a reply of the wrong shape
                raise errors.malformed(f"unreadable model list: {type(error).__name__}: {error}") from None
            raise translated from None

    def _find_key(self) -> tuple[str, str] | None:
        if self.settings.api_key is not None:
            return str(self.settings.api_key.get_secret_value()), "config"
        key = self._env.get(self.settings.api_key_env)
        if key:
            return key, f"env {self.settings.api_key_env}"
        stored = self._keys.get(self.name) if self._keys is not None else None
        if stored is not None:
            return stored.value, stored.source
        return None

    def _resolve_key(self) -> str:
        found = self._find_key()
        if found is not None:
            return found[0]
        if self._explicit_base_url is not None:
            return PLACEHOLDER_KEY
        raise ConfigurationError(
            f"no API key for provider {self.name!r}: set the environment variable "
            f"{self.settings.api_key_env}, store one with `quorum keys set {self.name}`, "
            f"or set api_key / api_key_env in [providers.{self.name}]",
            key=f"providers.{self.name}.api_key",
        )

    def _errors(self, model: str) -> ErrorTranslator:
        return ErrorTranslator(
            provider=self.name,
            model=model,
            base_url=self.base_url,
            key_env=self.settings.api_key_env,
            max_retries=self.settings.max_retries,
            timeout=self.settings.timeout,
        )


def register_sdk_kind(
    registry: ProviderRegistry, kind: str, gateway: type[SdkGateway[S]], settings: type[S], description: str
) -> None:
    """Register provider ``kind``: its ``[providers.NAME]`` sections validate as ``settings``, open ``gateway``s.

    A section of another model (a plugin's subclass, say) is not this kind's: the defaults are used.
    """

    def create_gateway(context: ProviderContext) -> SdkGateway[S]:
        chosen = context.settings if isinstance(context.settings, settings) else settings.model_validate({})
        return gateway(context.name, chosen, context.env, context.keys)

    registry.add(kind, create_gateway, settings=settings, description=description)
