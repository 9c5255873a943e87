"""Built-in plugin ``quorum.sqlite``: the SQLite run store, registered as store ``sqlite``.

Registration and the factory are cheap: the factory only works out the path; the file is opened
(and created, and migrated) by the store's first use.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from quorum.infrastructure.plugins.contracts import StoreContext
from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.registries import StoreRegistry
from quorum.infrastructure.storage.settings import StorageSettings

if TYPE_CHECKING:
    from quorum.infrastructure.config.schema import Settings
    from quorum.infrastructure.storage.sqlite_store import SqliteRunStore

DB_ENV = "QUORUM_DB"
DB_FILENAME = "runs.db"


def default_data_dir() -> Path:
    """Quorum's folder in the platform data dir (e.g. ``~/.local/share/quorum`` on Linux)."""
    import platformdirs  # only when no path is configured

    return Path(platformdirs.user_data_dir("quorum", appauthor=False))


def database_path(
    settings: Settings | StorageSettings | None, env: Mapping[str, str], data_dir: Path | None = None
) -> Path:
    """Where the run log is: ``QUORUM_DB``, else ``[storage] path``, else ``runs.db`` in the data dir.

    Args:
        settings: the whole ``Settings`` (its ``storage``), a ``StorageSettings``, or None.
        env: the environment as the container saw it.
        data_dir: Quorum's data folder; the platform's when None.
    """
    if env.get(DB_ENV):
        return Path(env[DB_ENV]).expanduser()
    storage = settings if settings is None or isinstance(settings, StorageSettings) else settings.storage
    if storage is not None and storage.path is not None:
        return Path(storage.path).expanduser()
    return (data_dir or default_data_dir()) / DB_FILENAME


def sqlite_store(context: StoreContext) -> SqliteRunStore:
    """The SQLite run log (``[storage] path``, ``QUORUM_DB``, or ``runs.db`` in the data dir)."""
    from quorum.infrastructure.storage.sqlite_store import SqliteRunStore

    return SqliteRunStore(database_path(context.settings, context.env, context.data_dir))


@hookimpl
def quorum_register_stores(registry: StoreRegistry) -> None:
    registry.add("sqlite", sqlite_store)
