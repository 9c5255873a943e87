"""``[storage]``: where the run log is kept."""

from __future__ import annotations

from pathlib import Path

from quorum.infrastructure.config.sections import Section


class StorageSettings(Section):
    """``[storage]`` section.

    Attributes:
        backend: the run-store plugin to use.
        path: database file (default: ``quorum/runs.db`` in the platform data dir; ``QUORUM_DB`` wins).
        enabled: record runs at all (``--no-log`` turns it off for one run).
    """

    backend: str = "sqlite"
    path: Path | None = None
    enabled: bool = True
