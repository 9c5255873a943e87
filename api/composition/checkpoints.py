"""Checkpoints in the composition: the workspace's store, the executor that records around calls, and undo.

``[checkpoints] enabled`` (default true) decides whether runs record the workspace; every driver's
runs go through ``Container.run_agent``, whose executor ``checkpointed`` wraps, and the Temporal
worker wraps its own the same way (decision 240). ``build_undo`` is what ``quorum undo``,
``Agent.undo``, ``/undo`` in chat and ``POST /v1/runs/{id}/undo`` use (docs/undo.md).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from quorum.domain.errors import UsageError
from quorum.infrastructure.checkpoints.settings import CheckpointsSettings

if TYPE_CHECKING:
    from quorum.application.ports.observer import RunObserver
    from quorum.application.use_cases.undo_run import UndoRun
    from quorum.infrastructure.checkpoints.store import FileCheckpointStore
    from quorum.infrastructure.config.schema import Settings


def checkpoints_enabled(settings: Settings) -> bool:
    """Whether runs under ``settings`` record checkpoints (``[checkpoints] enabled``)."""
    return settings.section(CheckpointsSettings).enabled


def store_root(settings: Settings) -> Path:
    """Where checkpoints are kept: ``[checkpoints] path``, else ``checkpoints`` in Quorum's data dir."""
    from quorum.composition.paths import user_data_dir

    configured = settings.section(CheckpointsSettings).path
    return configured.expanduser() if configured is not None else user_data_dir() / "checkpoints"


def checkpoint_store(settings: Settings, env: Mapping[str, str]) -> FileCheckpointStore | None:
    """The checkpoint store of the workspace of ``settings``; None when ``[checkpoints] enabled = false``.

    The run log's SQLite files are never recorded, wherever they are.
    """
    if not checkpoints_enabled(settings):
        return None
    from quorum.composition.paths import workspace_of
    from quorum.infrastructure.checkpoints.store import FileCheckpointStore
    from quorum.infrastructure.storage.plugin import database_path

    section = settings.section(CheckpointsSettings)
    log = database_path(settings, env)
    skip = [log, *(Path(f"{log}{suffix}") for suffix in ("-wal", "-shm", "-journal"))]
    return FileCheckpointStore(
        store_root(settings),
        workspace_of(settings),
        exclude=section.exclude,
        max_bytes=section.max_file_bytes,
        skip=skip,
    )


def checkpointed(executor: Any, store: FileCheckpointStore | None) -> Any:
    """``executor`` recording ``store`` around each call that may change the workspace; itself if ``store`` is None."""
    if store is None:
        return executor
    from quorum.application.checkpointing import CheckpointingExecutor

    return CheckpointingExecutor(executor, store)


def build_undo(container: Any, observers: Sequence[RunObserver] = ()) -> UndoRun:
    """The undo of the workspace of ``container`` (a ``Container``); each undo goes to the run log and ``observers``.

    Raises:
        UsageError: checkpoints are disabled (``[checkpoints] enabled = false``): nothing can be undone.
    """
    from quorum.application.use_cases.undo_run import UndoRun
    from quorum.composition.observers import FanOut, build_recorder

    store = container.checkpoints()
    if store is None:
        raise UsageError("checkpoints are disabled ([checkpoints] enabled = false): there is nothing to undo")
    settings = container.settings()
    watchers = [build_recorder(container.run_store(), settings, None), *observers]
    return UndoRun(store=store, observer=FanOut([w for w in watchers if w is not None]))
