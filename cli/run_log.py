"""The run log as commands reach it: the configured store, its pending approvals, a run named by a prefix."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from quorum.composition.options import AppOptions
from quorum.infrastructure.storage.settings import StorageSettings


def open_run_store(config_path: Path | None) -> Any:
    """The configured run store (``[storage] backend``), even when recording is switched off.

    Raises:
        ConfigurationError: the configuration is invalid or names a backend no plugin provides.
    """
    from quorum.cli.compose import compose
    from quorum.composition.stores import open_store

    container = compose(AppOptions(config_path=config_path))
    return open_store(container.catalog(), container.settings(), container.env())


def resolve_run_id(store: Any, run_id: str) -> str:
    """The run ``run_id`` names: ``last``, a whole id, or any unique prefix of one.

    Raises:
        UsageError: no run, or a prefix several runs share (the candidates are listed).
    """
    from quorum.domain.errors import UsageError

    if run_id == "last":
        last = store.last_run_id()
        if last is None:
            raise UsageError("no runs recorded yet")
        return str(last)
    if store.get_run(run_id) is not None:
        return run_id
    matches = store.match_run_ids(run_id, limit=11) if run_id else []
    if len(matches) == 1:
        return str(matches[0])
    if not matches:
        raise UsageError(f"no run {run_id!r} in the run log")
    shown = ", ".join(matches[:10]) + (", …" if len(matches) > 10 else "")
    raise UsageError(f"run id prefix {run_id!r} is ambiguous: {shown}")


def approvals_of(options: AppOptions) -> Any:
    """The run log's pending approvals (a ``PendingApprovals``), opened through the container.

    Raises:
        UsageError: the run log is disabled.
        ConfigurationError: the configured run store keeps no pending approvals.
    """
    from quorum.cli.compose import compose
    from quorum.composition.stores import as_approvals

    return as_approvals(compose(options).run_store())


def run_log_location(container: Any) -> str:
    """Where runs are recorded: the database path of the ``sqlite`` store, else the backend's name."""
    from quorum.composition.paths import user_data_dir
    from quorum.infrastructure.storage.plugin import database_path

    settings = container.settings()
    backend = settings.section(StorageSettings).backend
    where = str(database_path(settings, container.env(), user_data_dir())) if backend == "sqlite" else backend
    return where + ("" if settings.section(StorageSettings).enabled else " (recording off: [storage] enabled = false)")
