"""The hooks of this invocation: every layer's ``[[hooks.EVENT]]`` (a workspace's only when trusted).

``build_hooks`` is the container's ``hooks`` provider: the ``HookRunner`` each ``RunAgent`` gets,
whichever driver asked for the run, or None when no hook is configured (runs then pay nothing).
"""

from __future__ import annotations

from collections.abc import Mapping

from quorum.composition.paths import workspace_of
from quorum.infrastructure.config.loader import RawConfig
from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.hooks.layers import configured_hooks
from quorum.infrastructure.hooks.runner import ShellHookRunner
from quorum.infrastructure.secrets import KnownSecrets


def build_hooks(
    raw: RawConfig, settings: Settings, env: Mapping[str, str], secrets: KnownSecrets
) -> ShellHookRunner | None:
    """The runner of the configured hooks, in the workspace, with the environment less Quorum's secrets.

    Raises:
        ConfigurationError: a layer's ``[hooks]`` is invalid.
    """
    hooks = configured_hooks(raw)
    if not hooks:
        return None
    return ShellHookRunner(hooks, workspace=workspace_of(settings), env=secrets.scrub(env))
