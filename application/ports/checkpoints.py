"""Port to the checkpoint store: the recorded states of one workspace's files, and putting them back.

One store serves one workspace. It keeps file contents content-addressed (an unchanged file is
stored once) in Quorum's data dir, never in the workspace or its ``.git``. What it covers is its
configuration's (``[checkpoints]``: ``.git/`` and the ``exclude`` globs are never recorded, a file
over ``max_file_mib`` is recorded as ``oversize``, without its content).

Every method is synchronous and touches the disk: async callers run it in a thread.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Protocol

from quorum.domain.checkpoints import Checkpoint, FileState


class CheckpointStore(Protocol):
    """Records the workspace before a run changes it and after each batch of calls, and restores files."""

    def baseline(self, run_id: str) -> None:
        """Record the workspace as it is now, as the state run ``run_id`` starts from.

        Changes made since the last recording (by a person, by a command of no run) become the
        starting state; they are nobody's checkpoint. Called before a run's first call that can
        change the workspace; cheap when nothing changed (a stat per file, hashing only changed ones).
        """
        ...

    def record(self, run_id: str, call_ids: Sequence[str]) -> Checkpoint:
        """Record the workspace after a batch of ``call_ids`` of run ``run_id``; the changes since the last recording.

        Always stores a checkpoint (with no changes when the batch changed nothing), so every call
        of the run has a position (``--to CALL_ID``).
        """
        ...

    def runs(self) -> list[str]:
        """Runs with checkpoints in this workspace, the most recent (by its last checkpoint) last."""
        ...

    def checkpoints(self, run_id: str) -> list[Checkpoint]:
        """The checkpoints of ``run_id`` in order (empty: unknown run, or it changed nothing)."""
        ...

    def current(self, paths: Sequence[str]) -> dict[str, FileState | None]:
        """The state of each of ``paths`` in the workspace now (None: absent), hashing files as needed."""
        ...

    def content(self, path: str, state: FileState | None) -> bytes | None:
        """The bytes of ``path`` in ``state`` (a kept blob), or of the workspace's file now when ``state`` is None.

        None when there are none to show: a directory, a link, an oversize or absent file.
        """
        ...

    def restore(self, targets: Mapping[str, FileState | None]) -> None:
        """Put each path of ``targets`` in its state: content and mode, a link, a directory, or removed (None).

        Files are written before directories are removed (deepest first; a directory left
        non-empty stays). ``oversize`` targets are skipped (their content was not kept).

        Raises:
            QuorumError: a blob is missing from the store (it was deleted by hand).
        """
        ...
