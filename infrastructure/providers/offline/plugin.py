"""Built-in plugin registering the offline providers ``test`` and ``scripted``."""

from __future__ import annotations

from typing import Any

from quorum.infrastructure.plugins.hookspecs import hookimpl


def _test(context: Any) -> Any:
    """Offline: calls each low-risk tool once, then summarises (no key, no network)."""
    from quorum.infrastructure.providers.offline.test_model import TestGateway

    return TestGateway(context)


def _scripted(context: Any) -> Any:
    """Offline: replays a TOML/JSON script of turns (scripted:PATH[#NAME])."""
    from quorum.infrastructure.providers.offline.scripted import ScriptedGateway

    return ScriptedGateway(context)


@hookimpl
def quorum_register_providers(registry: Any) -> None:
    registry.add("test", _test)
    registry.add("scripted", _scripted)
