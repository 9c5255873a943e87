"""Checkpoints: the recorded state of a workspace's files, before a run changes them and after each change.

A ``FileState`` is what one path was (a file with its content digest and mode, a symbolic link
with its target, a directory); a ``FileChange`` is one path before and after a call; a
``Checkpoint`` is the changes one batch of calls made, recorded after the batch. Undo reads them
back (``quorum.application.use_cases.undo_run``).
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict

FileKind = Literal["file", "link", "dir"]
"""What a path is: a regular file, a symbolic link (recorded as a link, never followed), a directory."""

ChangeKind = Literal["created", "modified", "deleted"]


class FileState(BaseModel):
    """What one path was when a checkpoint saw it.

    Attributes:
        kind: file, link or dir.
        mode: the permission bits (``stat.S_IMODE``); 0 for a link.
        size: bytes (a file's content, a link's target); 0 for a directory.
        digest: the SHA-256 of a file's content (its blob in the store); None for a directory, a
            link, and a file over the size limit (``oversize``), whose content was not kept.
        target: a link's target as written (relative or absolute, never resolved).
        oversize: a file larger than ``[checkpoints] max_file_mib``: its content was not kept,
            so it cannot be restored to this state.
    """

    model_config = ConfigDict(frozen=True)

    kind: FileKind
    mode: int = 0
    size: int = 0
    digest: str | None = None
    target: str | None = None
    oversize: bool = False

    def same_as(self, other: FileState | None) -> bool:
        """True when ``other`` is this state: same kind, mode and content (an oversize file: same size)."""
        if other is None or other.kind != self.kind or other.mode != self.mode:
            return False
        if self.kind == "link":
            return self.target == other.target
        if self.kind == "file":
            if self.oversize or other.oversize:
                return self.oversize == other.oversize and self.size == other.size
            return self.digest == other.digest
        return True


class FileChange(BaseModel):
    """One path a batch changed: its state before and after (None: it did not exist)."""

    model_config = ConfigDict(frozen=True)

    path: str
    """Relative to the workspace, ``/``-separated."""
    before: FileState | None
    after: FileState | None

    @property
    def is_dir(self) -> bool:
        """True when the path is a directory after the change (or was one, before a deletion)."""
        state = self.after if self.after is not None else self.before
        return state is not None and state.kind == "dir"

    @property
    def how(self) -> ChangeKind:
        if self.before is None:
            return "created"
        return "deleted" if self.after is None else "modified"


class Checkpoint(BaseModel):
    """The changes one batch of calls made to the workspace, recorded after the batch.

    Attributes:
        checkpoint_id: unique in the store.
        run_id: the run whose calls made the changes.
        seq: the checkpoint's position in the run (1, 2, ...).
        call_ids: the calls of the batch.
        changes: every path the batch created, modified or deleted (directories included).
        at: when it was recorded.
    """

    model_config = ConfigDict(frozen=True)

    checkpoint_id: str
    run_id: str
    seq: int
    call_ids: tuple[str, ...]
    changes: tuple[FileChange, ...]
    at: datetime

    @property
    def unrestorable(self) -> tuple[str, ...]:
        """Files this checkpoint cannot put back as they were before it (their content was over the size limit)."""
        return tuple(c.path for c in self.changes if c.before is not None and c.before.oversize)

    def paths(self, how: ChangeKind) -> tuple[str, ...]:
        """The files (not directories) the batch ``how`` (created, modified, deleted), sorted."""
        return tuple(sorted(c.path for c in self.changes if c.how == how and not c.is_dir))
