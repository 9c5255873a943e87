"""Options several commands take, defined once."""

from __future__ import annotations

from pathlib import Path

import click

config_option = click.option(
    "--config",
    "config_path",
    type=click.Path(path_type=Path, dir_okay=False),
    help="Extra config file (over ./quorum.toml).",
)
"""``--config PATH``: one more config layer, after ./quorum.toml."""
