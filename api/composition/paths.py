"""Where Quorum keeps its files: the user's config and data directories, and a run's workspace."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from quorum.infrastructure.tools.settings import ToolsSettings
from quorum.infrastructure.tools.workspace import resolved_dir

if TYPE_CHECKING:
    from quorum.infrastructure.config.schema import Settings


def user_config_dir() -> Path:
    """Where the user-level quorum.toml lives (``quorum/quorum.toml`` in the platform config dir)."""
    import platformdirs

    return Path(platformdirs.user_config_dir("quorum"))


def user_data_dir() -> Path:
    """Where the run log, caches and MCP tokens live (the platform data dir)."""
    import platformdirs

    return Path(platformdirs.user_data_dir("quorum"))


def workspace_of(settings: Settings) -> Path:
    """The directory the tools act in: ``[tools] workspace``, else the current directory.

    Resolved once per process for each (path, current directory) (``resolved_dir``): a run asks
    for it several times (the prompt, the review, the hooks).
    """
    return resolved_dir(settings.section(ToolsSettings).workspace or os.getcwd())
