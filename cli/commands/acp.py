"""``quorum acp``: Quorum as an Agent Client Protocol agent for editors (Zed, JetBrains, Neovim, Emacs).

The agent is its own driver, ``quorum.acp``, which the CLI does not import (drivers are
independent, decision 160): this command checks the SDK is installed and replaces the process
with ``python -m quorum.acp``, so the editor talks to the agent directly over stdin/stdout.
"""

from __future__ import annotations

import os
import sys
from pathlib import Path

import click

from quorum.cli.flags import config_option


@click.command()
@config_option
@click.option("--model", "-m", metavar="PROVIDER:MODEL", help="Model of every session (default: the configured one).")
def acp(config_path: Path | None, model: str | None) -> None:
    """Speak the Agent Client Protocol on stdin/stdout, for an editor to start.

    Nothing but protocol messages is written to stdout; logs go to stderr. Each editor session is
    a conversation in the run log, its workspace the editor's project directory; calls that need
    a person are asked in the editor. Needs the acp extra: pip install "quorum-agent[acp]".
    """
    import importlib.util

    if importlib.util.find_spec("acp") is None:
        click.echo('quorum: error: quorum acp needs agent-client-protocol: pip install "quorum-agent[acp]"', err=True)
        raise SystemExit(2)
    argv = [sys.executable, "-m", "quorum.acp"]
    if config_path is not None:
        argv += ["--config", str(config_path)]
    if model:
        argv += ["--model", model]
    sys.stdout.flush()
    sys.stderr.flush()
    os.execv(sys.executable, argv)
