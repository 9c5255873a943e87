"""The LlmGateway that routes ``provider:model`` to the provider plugin configured for it."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import TYPE_CHECKING

from quorum.application.ports.llm import LlmSession
from quorum.domain.errors import UsageError
from quorum.domain.messages import Message
from quorum.domain.model_id import ModelId
from quorum.infrastructure.config.loader import ProviderInstance, default_provider
from quorum.infrastructure.plugins.contracts import ClosableGateway, ProviderContext, ProviderGateway
from quorum.infrastructure.plugins.registries import ProviderRegistry

if TYPE_CHECKING:
    from quorum.infrastructure.keys.store import KeyLookup


class PluginLlmGateway:
    """Opens sessions through provider plugins.

    ``NAME:model`` uses the ``[providers.NAME]`` instance, or, when there is none and NAME is an
    installed provider kind, that kind with default settings. Provider gateways are created on
    first use and reused; creating one must not import an SDK.

    A model id may also be an ``[aliases]`` name (``fast`` → ``openai:gpt-4.1-mini``) or a bare
    model name that exactly one provider's known model has (``gpt-4.1-mini``); ``known_models``
    are the ``provider:model`` ids the configuration names.
    """

    def __init__(
        self,
        registry: ProviderRegistry,
        instances: Mapping[str, ProviderInstance],
        env: Mapping[str, str],
        *,
        aliases: Mapping[str, str] | None = None,
        known_models: Iterable[str] = (),
        keys: KeyLookup | None = None,
    ) -> None:
        self._registry = registry
        self._instances = dict(instances)
        self._env = env
        self._aliases = dict(aliases or {})
        self._known = tuple(dict.fromkeys([*known_models, *self._aliases.values()]))
        self._keys = keys
        self._gateways: dict[str, ProviderGateway] = {}

    def resolve(self, model_id: str) -> str:
        """``model_id`` with an alias or a bare model name replaced by its ``provider:model``.

        Raises:
            UsageError: a bare name that several providers' known models have.
        """
        text = model_id.strip()
        if text in self._aliases:
            return self._aliases[text]
        if ":" in text or text in self._instances or self._registry.get(text) is not None:
            return text
        matches = [known for known in self._known if known.partition(":")[2] == text]
        if len(matches) > 1:
            raise UsageError(f"model {text!r} is ambiguous: {', '.join(matches)}; name it as provider:model")
        return matches[0] if matches else text

    def known_models(self) -> dict[str, list[str]]:
        """Provider name → the model names the configuration mentions for it (aliases included)."""
        found: dict[str, list[str]] = {}
        for known in self._known:
            provider, _, model = known.partition(":")
            if model and model not in found.setdefault(provider, []):
                found[provider].append(model)
        return found

    def aliases(self) -> dict[str, str]:
        """``[aliases]``: name → model id."""
        return dict(self._aliases)

    def configured_names(self) -> list[str]:
        """The ``[providers.NAME]`` instances."""
        return sorted(self._instances)

    def provider(self, name: str) -> ProviderGateway:
        """The gateway of one provider instance (or installed kind); raises UsageError if unknown."""
        return self._gateway(name, f"{name}:")

    def provider_names(self) -> list[str]:
        """Configured instances and installed kinds, for messages and listings."""
        return sorted(set(self._instances) | set(self._registry.names()))

    def session(
        self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()
    ) -> LlmSession:
        """A session on ``model_id``; raises UsageError for an unknown provider."""
        parsed = ModelId.parse(self.resolve(model_id))
        gateway = self._gateway(parsed.provider, model_id)
        return gateway.session(parsed.model, system_prompt, history=history)

    async def aclose(self) -> None:
        """Close every provider gateway that holds connections. Idempotent."""
        gateways, self._gateways = list(self._gateways.values()), {}
        for gateway in gateways:
            if isinstance(gateway, ClosableGateway):
                await gateway.aclose()

    def _gateway(self, name: str, model_id: str) -> ProviderGateway:
        if name in self._gateways:
            return self._gateways[name]
        instance = self._instances.get(name)
        if instance is None:
            if self._registry.get(name) is None:
                raise UsageError(
                    f"unknown provider {name!r} in model {model_id!r}; available: "
                    f"{', '.join(self.provider_names())} (configure others under [providers.NAME], "
                    f"or name an [aliases] entry; `quorum models` lists them)"
                )
            models = {e.name: e.settings for e in self._registry.entries()}
            instance = default_provider(name, models)
        entry = self._registry.get(instance.kind)
        assert entry is not None  # the loader validated the kind
        gateway = entry.value(ProviderContext(instance.name, instance.kind, instance.settings, self._env, self._keys))
        self._gateways[name] = gateway
        return gateway
