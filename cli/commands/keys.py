"""``quorum keys set|list|path|rm``: provider keys kept for the user.

Keys live in the platform keyring when one works, else in a 0600 file in Quorum's config dir
(``QUORUM_KEYS_BACKEND`` = auto | keyring | file). A provider instance uses its stored key when
its section has no ``api_key`` and its ``api_key_env`` variable is not set. Values are never printed.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING

import click

from quorum.cli.errors import handled

if TYPE_CHECKING:
    from quorum.infrastructure.keys.store import StoredKeys


def _store() -> StoredKeys:
    from quorum.composition.paths import user_config_dir
    from quorum.infrastructure.keys.store import open_key_store

    return open_key_store(os.environ, user_config_dir())


@click.group()
def keys() -> None:
    """Store provider API keys (keyring, else a private file), used when the env var is absent."""


@keys.command("set")
@click.argument("name")
def set_key(name: str) -> None:
    """Store the key of provider NAME (e.g. openai), read from stdin or a hidden prompt."""
    from quorum.domain.errors import UsageError

    with handled():
        typed = click.prompt(f"key for {name}", hide_input=True, err=True) if sys.stdin.isatty() else None
        value = (typed if typed is not None else sys.stdin.read()).strip()
        if not value or any(c.isspace() for c in value):
            raise UsageError("expected one key (no spaces) on stdin or at the prompt; nothing was stored")
        store = _store()
        where = store.set(name, value)
    shown = f"the keyring ({store.keyring_name()})" if where == "keyring" else str(store.path)
    click.echo(f"stored the key of {name!r} in {shown}", err=True)
    _warn_unknown(name)


@keys.command("list")
def list_keys() -> None:
    """List the names keys are stored for, and where (never the values)."""
    with handled():
        names = _store().names()
    if not names:
        click.echo("no keys stored (quorum keys set NAME)", err=True)
        return
    for name, where in sorted(names.items()):
        click.echo(f"{name}\t{'keyring' if where == 'keyring' else 'key file'}")


@keys.command("path")
def key_path() -> None:
    """Print where keys are stored: the key file, and the keyring backend in use."""
    with handled():
        store = _store()
        backend = store.keyring_name()
    click.echo(str(store.path))
    click.echo(f"keyring: {backend or 'none (keys are stored in the file above, mode 0600)'}", err=True)


@keys.command("rm")
@click.argument("names", nargs=-1, required=True)
def remove_keys(names: tuple[str, ...]) -> None:
    """Forget the stored keys of NAMES."""
    with handled():
        store = _store()
        missing = [name for name in names if not store.remove(name)]
    if missing:
        click.echo(f"quorum: no key stored for {', '.join(missing)}", err=True)
        raise SystemExit(1)


def _warn_unknown(name: str) -> None:
    """Say so when no provider would use the key; a broken configuration is not this command's business."""
    from quorum.cli.compose import compose
    from quorum.composition.options import AppOptions
    from quorum.domain.errors import QuorumError

    try:
        known = compose(AppOptions()).gateway().provider_names()
    except QuorumError:
        return
    if name not in known:
        click.echo(
            f"quorum: warning: no provider {name!r} is configured or installed ({', '.join(known)}); "
            f"the key is used once [providers.{name}] exists",
            err=True,
        )
