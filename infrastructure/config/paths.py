"""Checks of configured paths that must exist before anything uses them."""

from __future__ import annotations

from pathlib import Path

from quorum.domain.errors import ConfigurationError


def check_workspace(workspace: Path | None, source: str | None) -> None:
    """``[tools] workspace`` must be an existing directory (every tool would fail otherwise).

    Raises:
        ConfigurationError: naming the key, the file (or layer) that set it and the path.
    """
    if workspace is None:
        return
    path = workspace.expanduser()
    if path.is_dir():
        return
    problem = "does not exist" if not path.exists() else "is not a directory"
    raise ConfigurationError(f"{str(workspace)!r} {problem}", source=source, key="tools.workspace")
