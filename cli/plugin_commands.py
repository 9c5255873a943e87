"""Commands contributed by plugins (looked up only when a name is not a built-in command)."""

from __future__ import annotations

import click

from quorum.cli.errors import handled


def find_plugin_command(name: str, reserved: frozenset[str]) -> click.Command | None:
    """The plugin command called ``name``, or None. Loads plugins (and the configuration)."""
    from quorum.cli.compose import compose
    from quorum.composition.options import AppOptions

    with handled():
        catalog = compose(AppOptions()).catalog()
        entry = catalog.commands(reserved).get(name)
    return entry.value if entry is not None else None
