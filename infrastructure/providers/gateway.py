"""The LlmGateway that routes ``provider:model`` to the provider plugin configured for it."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from quorum.application.ports.llm import LlmSession
from quorum.domain.errors import UsageError
from quorum.domain.messages import Message
from quorum.domain.model_id import ModelId
from quorum.infrastructure.config.loader import ProviderInstance, default_provider
from quorum.infrastructure.plugins.contracts import ClosableGateway, ProviderContext, ProviderGateway
from quorum.infrastructure.plugins.registries import ProviderRegistry


class PluginLlmGateway:
    """Opens sessions through provider plugins.

    ``NAME:model`` uses the ``[providers.NAME]`` instance, or, when there is none and NAME is an
    installed provider kind, that kind with default settings. Provider gateways are created on
    first use and reused; creating one must not import an SDK.
    """

    def __init__(
        self,
        registry: ProviderRegistry,
        instances: Mapping[str, ProviderInstance],
        env: Mapping[str, str],
    ) -> None:
        self._registry = registry
        self._instances = dict(instances)
        self._env = env
        self._gateways: dict[str, ProviderGateway] = {}

    def provider_names(self) -> list[str]:
        """Configured instances and installed kinds, for messages and listings."""
        return sorted(set(self._instances) | set(self._registry.names()))

    def session(
        self, model_id: str, system_prompt: str | None = None, *, history: Sequence[Message] = ()
    ) -> LlmSession:
        """A session on ``model_id``; raises UsageError for an unknown provider."""
        parsed = ModelId.parse(model_id)
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
                    f"{', '.join(self.provider_names())} (configure others under [providers.NAME])"
                )
            models = {e.name: e.settings for e in self._registry.entries()}
            instance = default_provider(name, models)
        entry = self._registry.get(instance.kind)
        assert entry is not None  # the loader validated the kind
        gateway = entry.value(ProviderContext(instance.name, instance.kind, instance.settings, self._env))
        self._gateways[name] = gateway
        return gateway
