"""Built-in plugin ``quorum.sqlite``: ``[storage]`` and the run stores ``sqlite`` and ``postgres`` (its ``backend``).

Registration and the factories are cheap: they only work out the path or URL; the file or database
is opened (and created, and migrated) by the store's first use, and psycopg is imported only then.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.plugins.contracts import StoreContext
from quorum.infrastructure.plugins.hookspecs import hookimpl
from quorum.infrastructure.plugins.registries import ConfigSectionRegistry, StoreRegistry
from quorum.infrastructure.storage.settings import StorageSettings

if TYPE_CHECKING:
    from quorum.infrastructure.config.schema import Settings
    from quorum.infrastructure.storage.postgres_store import PostgresRunStore
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
    storage = (
        settings if settings is None or isinstance(settings, StorageSettings) else settings.section(StorageSettings)
    )
    if storage is not None and storage.path is not None:
        return Path(storage.path).expanduser()
    return (data_dir or default_data_dir()) / DB_FILENAME


def sqlite_store(context: StoreContext) -> SqliteRunStore:
    """The SQLite run log (``[storage] path``, ``QUORUM_DB``, or ``runs.db`` in the data dir)."""
    from quorum.infrastructure.storage.sqlite_store import SqliteRunStore

    return SqliteRunStore(database_path(context.settings, context.env, context.data_dir))


def postgres_store(context: StoreContext) -> PostgresRunStore:
    """The PostgreSQL run log at ``[storage] url`` (shared by workers on several machines).

    Raises:
        ConfigurationError: no ``url`` is configured, or psycopg is not installed.
    """
    from quorum.infrastructure.storage.postgres_store import PostgresRunStore, import_psycopg

    url = context.settings.section(StorageSettings).resolved_url(context.env)
    if not url:
        raise ConfigurationError(
            'backend = "postgres" needs [storage] url, e.g. "postgresql://USER@HOST/DATABASE"', key="storage.url"
        )
    import_psycopg()  # a missing extra is a configuration error now, not at the first write
    return PostgresRunStore(url)


@hookimpl
def quorum_register_config_sections(registry: ConfigSectionRegistry) -> None:
    registry.add("storage", StorageSettings)


@hookimpl
def quorum_register_stores(registry: StoreRegistry) -> None:
    registry.add("sqlite", sqlite_store)
    registry.add("postgres", postgres_store)
