"""``[checkpoints]``: whether runs record the workspace so ``quorum undo`` can restore it, and what is left out."""

from __future__ import annotations

from pathlib import Path

from pydantic import Field, field_validator

from quorum.infrastructure.config.sections import Section

MIB = 1024 * 1024


class CheckpointsSettings(Section):
    """``[checkpoints]`` section.

    Attributes:
        enabled: record the workspace before a run's first call that can change it and after
            each such call (``quorum undo``); off: nothing is recorded and runs cannot be undone.
        exclude: glob patterns of workspace-relative paths (``/``-separated) never recorded nor
            restored, e.g. ``["node_modules", "*.log", "build/*"]``; a directory that matches is
            left out with everything under it. ``.git`` directories are always left out.
        max_file_mib: the largest file (MiB) whose content is kept; a larger file that a run
            changes is recorded without it, and undo cannot restore it (it says so).
        path: where the store lives; default ``checkpoints`` in Quorum's data dir. Never inside
            the workspace.
    """

    enabled: bool = True
    exclude: tuple[str, ...] = ()
    max_file_mib: float = Field(50.0, gt=0)
    path: Path | None = None

    @field_validator("exclude")
    @classmethod
    def _patterns(cls, value: tuple[str, ...]) -> tuple[str, ...]:
        for pattern in value:
            if not pattern.strip():
                raise ValueError("an exclude pattern must not be empty")
        return tuple(pattern.strip().strip("/") for pattern in value)

    @property
    def max_file_bytes(self) -> int:
        return int(self.max_file_mib * MIB)
