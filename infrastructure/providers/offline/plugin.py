"""Built-in plugin registering the offline providers ``test`` and ``scripted``."""

from __future__ import annotations

from typing import TYPE_CHECKING

from quorum.infrastructure.plugins.hookspecs import hookimpl

if TYPE_CHECKING:
    from quorum.infrastructure.plugins.contracts import ProviderContext
    from quorum.infrastructure.plugins.registries import ProviderRegistry
    from quorum.infrastructure.providers.offline.scripted import ScriptedGateway
    from quorum.infrastructure.providers.offline.test_model import TestGateway


def _test(context: ProviderContext) -> TestGateway:
    """Offline: calls each low-risk tool once, then summarises (no key, no network)."""
    from quorum.infrastructure.providers.offline.test_model import TestGateway

    return TestGateway(context)


def _scripted(context: ProviderContext) -> ScriptedGateway:
    """Offline: replays a TOML/JSON script of turns (scripted:PATH[#NAME])."""
    from quorum.infrastructure.providers.offline.scripted import ScriptedGateway

    return ScriptedGateway(context)


@hookimpl
def quorum_register_providers(registry: ProviderRegistry) -> None:
    registry.add("test", _test)
    registry.add("scripted", _scripted)
