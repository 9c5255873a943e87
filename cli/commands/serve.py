"""``quorum serve``: runs, events and approvals over HTTP.

The server is its own driver, ``quorum.serve``, which the CLI does not import (drivers are
independent, decision 130): this command checks it is installed and replaces the process with
``python -m quorum.serve``, so signals reach the server directly.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from quorum.cli.flags import config_option


@click.command()
@click.option("--host", metavar="ADDRESS", help="Address to bind (default: [serve] host, 127.0.0.1).")
@click.option("--port", type=click.IntRange(0, 65535), help="TCP port (default: [serve] port, 8765).")
@click.option(
    "--workspace",
    type=click.Path(exists=True, file_okay=False, path_type=Path),
    help="The directory the runs' tools act in (default: [tools] workspace, else here).",
)
@config_option
@click.option(
    "--model", "-m", metavar="PROVIDER:MODEL", help="The runs' default model (default: model of quorum.toml)."
)
@click.option("--allow-remote", is_flag=True, help="Allow binding to an address other machines reach.")
def serve(
    host: str | None,
    port: int | None,
    workspace: Path | None,
    config_path: Path | None,
    model: str | None,
    allow_remote: bool,
) -> None:
    """Serve runs, their events and approvals over HTTP (a token on every route).

    A run's model is the one its request names, else --model, else the configuration's (as for
    `quorum run`); the page lists them to choose from.

    Prints the URL with the token to stderr and serves until Ctrl+C or SIGTERM; runs in flight
    are then cancelled and recorded `cancelled`. Needs the serve extra: pip install "quorum-agent[serve]".
    """
    import importlib.util

    missing = [name for name in ("starlette", "uvicorn") if importlib.util.find_spec(name) is None]
    if missing:
        needed = ", ".join(missing)
        click.echo(f'quorum: error: quorum serve needs {needed}: pip install "quorum-agent[serve]"', err=True)
        raise SystemExit(2)
    argv = [sys.executable, "-m", "quorum.serve"]
    given = (
        ("--host", host),
        ("--port", port),
        ("--workspace", workspace),
        ("--config", config_path),
        ("--model", model),
    )
    for flag, value in given:
        if value is not None:
            argv += [flag, str(value)]
    if allow_remote:
        argv.append("--allow-remote")
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, argv)
