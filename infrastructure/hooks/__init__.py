"""Hooks: the person's own commands run on a run's events (``[[hooks.EVENT]]``), through ``sh -c``.

``settings`` validates the ``[hooks]`` section, ``layers`` collects the hooks of every
configuration layer with the file each comes from, ``runner`` runs them (``ShellHookRunner``,
the application's ``HookRunner`` port) and ``plugin`` is the built-in plugin ``quorum.hooks``.
"""

from quorum.infrastructure.hooks.layers import ConfiguredHook, configured_hooks, untrusted_hooks
from quorum.infrastructure.hooks.runner import ShellHookRunner
from quorum.infrastructure.hooks.settings import HookSettings, HooksSettings

__all__ = [
    "ConfiguredHook",
    "HookSettings",
    "HooksSettings",
    "ShellHookRunner",
    "configured_hooks",
    "untrusted_hooks",
]
