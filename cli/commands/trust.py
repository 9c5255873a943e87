"""``quorum trust``: let a workspace's configuration files run programs and loosen review.

``quorum trust [DIR]`` shows, per file, exactly the keys that take effect only once trusted and
asks (``--yes`` does not; without a terminal and without ``--yes`` it refuses, exit 2). The
trust holds for the files as they are now (a fingerprint): a changed file is untrusted again.
``--list`` shows the trusted workspaces, ``--revoke DIR`` forgets one.
See docs/decisions/200-workspace-trust.md.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING

import click

from quorum.cli.errors import handled
from quorum.domain.errors import RunFailure, UsageError

if TYPE_CHECKING:
    from quorum.infrastructure.config.trust_store import TrustStore
    from quorum.infrastructure.config.workspace import WorkspaceFiles


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--yes", "-y", is_flag=True, help="Trust without asking (automation: CI, scripts).")
@click.option("--list", "list_", is_flag=True, help="List the trusted workspaces.")
@click.option("--revoke", is_flag=True, help="Forget DIRECTORY: its files are untrusted again.")
def trust(directory: Path | None, yes: bool, list_: bool, revoke: bool) -> None:
    """Trust the configuration files of DIRECTORY (default: the current directory) as they are now.

    An untrusted workspace's quorum.toml files (here and in parents up to the repository root)
    may add instructions and tighten review, but their keys that run programs, loosen review or
    send data elsewhere are ignored. This shows them, per file, lists the .quorum/ files, and asks.
    Exits 1 when the person says no, 2 without a terminal and without --yes.
    """
    from quorum.composition.trust import trust_store

    with handled():
        store = trust_store()
        if list_:
            if directory is not None or revoke:
                raise UsageError("--list takes no DIRECTORY and no --revoke")
            _list(store)
            return
        target = (directory or Path.cwd()).resolve()
        if revoke:
            if directory is None:
                raise UsageError("--revoke needs the DIRECTORY to forget")
            forgotten = store.revoke(target)
            click.echo(f"{'revoked' if forgotten else 'was not trusted'}: {target}")
            return
        _trust(store, target, yes)


def _trust(store: TrustStore, target: Path, yes: bool) -> None:
    import os

    from quorum.composition.trust import files_to_trust

    if not target.is_dir():
        raise UsageError(f"{target}: not a directory")
    workspace = files_to_trust(target, os.environ)
    files = workspace.files
    if not files:
        click.echo(f"{target}: no configuration file (quorum.toml, .quorum/) to trust")
        return
    _show(workspace)
    if store.is_trusted(target, files):
        click.echo(f"already trusted as it is: {target}")
        return
    if not yes:
        if not sys.stdin.isatty():
            raise UsageError(
                f"not trusting {target} without a terminal to ask on; "
                f"after reviewing the files above, run `quorum trust --yes {target}`"
            )
        if not click.confirm(f"Trust {target} with these files as they are now?", default=False):
            raise RunFailure("nothing was trusted")
    store.trust(target, files)
    click.echo(f"trusted: {target} (until one of these files changes)")


def _show(workspace: WorkspaceFiles) -> None:
    """Each configuration file and the keys it would enable once trusted, with their values; then ``.quorum/``."""
    from quorum.infrastructure.config.layers import read_toml
    from quorum.infrastructure.config.workspace import QUORUM_DIR
    from quorum.infrastructure.terminal_text import printable

    for path in workspace.configs:
        click.echo(f"{printable(str(path))}:")
        _show_keys(read_toml(path).data, path.parent)
    if workspace.others:
        click.echo(f"{QUORUM_DIR}/ files (hooks, commands, skills, agents: not read yet; trusted as they are):")
        for path in workspace.others:
            click.echo(f"  {printable(str(path))}")


def _show_keys(data: dict[str, object], base: Path) -> None:
    from quorum.infrastructure.config.trust import restricted_in
    from quorum.infrastructure.terminal_text import printable

    found = restricted_in(data, base)
    if not found:
        click.echo("  nothing that runs a program, loosens review or sends data elsewhere")
    for finding in found:
        value = printable(json.dumps(finding.value, ensure_ascii=False, default=str))
        click.echo(f"  {printable(finding.path)} = {value}    ({finding.why})")


def _list(store: TrustStore) -> None:
    entries = store.entries()
    if not entries:
        click.echo("no trusted workspaces")
    for entry in entries:
        click.echo(f"{entry.directory}  (trusted {entry.trusted_at}, {entry.fingerprint[:19]}…)")
