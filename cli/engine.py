"""What commands share about engines: which one a command uses, and leaving a Temporal client process.

``--engine`` wins over ``[engine] kind``. Choosing ``temporal`` without the extra installed is a
configuration error naming the extra, raised before anything starts.
"""

from __future__ import annotations

import os
import sys
from typing import Any

import click

from quorum.composition.engines import temporal_settings

__all__ = ["engine_option", "engine_overrides", "leave", "temporal_settings"]

engine_option = click.option(
    "--engine",
    type=click.Choice(["local", "temporal"]),
    help="Where the run executes (default: [engine] kind, else local).",
)


def engine_overrides(engine: str | None) -> dict[str, Any]:
    """The config override ``--engine`` stands for."""
    return {"engine": {"kind": engine}} if engine else {}


def leave(code: int) -> None:
    """Exit now with ``code``, after flushing stdout and stderr.

    A process that used the Temporal client may abort in its exit handlers
    (temporalio/sdk-python#300, exit 134), so it leaves with ``os._exit``.
    """
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(code)
