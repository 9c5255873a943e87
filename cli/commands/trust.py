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


@click.command()
@click.argument("directory", required=False, type=click.Path(file_okay=False, path_type=Path))
@click.option("--yes", "-y", is_flag=True, help="Trust without asking (automation: CI, scripts).")
@click.option("--list", "list_", is_flag=True, help="List the trusted workspaces.")
@click.option("--revoke", is_flag=True, help="Forget DIRECTORY: its files are untrusted again.")
def trust(directory: Path | None, yes: bool, list_: bool, revoke: bool) -> None:
    """Trust the configuration files of DIRECTORY (default: the current directory) as they are now.

    An untrusted workspace's quorum.toml may add instructions and tighten review, but its keys
    that run programs, loosen review or send data elsewhere are ignored. This shows them, per
    file, and asks. Exits 1 when the person says no, 2 without a terminal and without --yes.
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
    from quorum.infrastructure.config.loader import workspace_files

    if not target.is_dir():
        raise UsageError(f"{target}: not a directory")
    files = workspace_files(target)
    if not files:
        click.echo(f"{target}: no configuration file (quorum.toml) to trust")
        return
    _show(files)
    if store.is_trusted(target, files):
        click.echo(f"already trusted as it is: {target}")
        return
    if not yes:
        if not sys.stdin.isatty():
            raise UsageError(
                f"not trusting {target} without a terminal to ask on; "
                f"after reviewing the keys above, run `quorum trust --yes {target}`"
            )
        if not click.confirm(f"Trust {target} with these files as they are now?", default=False):
            raise RunFailure("nothing was trusted")
    store.trust(target, files)
    click.echo(f"trusted: {target} (until its configuration files change)")


def _show(files: list[Path]) -> None:
    """Each file and the keys it would enable once trusted, with their values."""
    from quorum.infrastructure.config.layers import read_toml
    from quorum.infrastructure.config.trust import restricted_in
    from quorum.infrastructure.terminal_text import printable

    for path in files:
        found = restricted_in(read_toml(path).data, path.parent)
        click.echo(f"{printable(str(path))}:")
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
