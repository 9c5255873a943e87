"""PostgresRunStore: the run log in a PostgreSQL database, shared by workers on several machines.

The same contract and the same statements as ``SqliteRunStore`` (``sql_store.py`` in the
PostgreSQL dialect) over the same tables (``schema.py``; their version: ``postgres_schema.py``).
Every write is one committed transaction; a claim locks the run's row (``SELECT … FOR UPDATE``)
before it re-reads what is pending, so of two processes claiming the same run, on any machines, the
second waits for the first and then finds the run no longer awaiting approval; the decisions'
primary key backs that up.

psycopg (``pip install "quorum-agent[postgres]"``) is imported by the first use of the store,
never by ``import quorum``.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.storage.operations import PostgresOperations
from quorum.infrastructure.storage.postgres_schema import migrate
from quorum.infrastructure.storage.sql_store import SqlRunStore, first_line

if TYPE_CHECKING:
    from contextlib import AbstractContextManager

    import psycopg


def import_psycopg() -> Any:
    """The psycopg module, or a configuration error saying how to install it."""
    try:
        import psycopg
    except ImportError:
        raise ConfigurationError(
            '[storage] backend = "postgres" needs psycopg: pip install "quorum-agent[postgres]"',
            key="storage.backend",
        ) from None
    return psycopg


def masked_url(url: str) -> str:
    """``url`` with its password (if any) replaced by ``***``, for messages."""
    from urllib.parse import urlsplit, urlunsplit

    try:
        parts = urlsplit(url)
    except ValueError:
        return "<the configured [storage] url>"
    if parts.password is None:
        return url
    netloc = parts.netloc.replace(f":{parts.password}@", ":***@", 1)
    return urlunsplit(parts._replace(netloc=netloc))


class PostgresRunStore(SqlRunStore):
    """A ``RunStore`` and ``PendingApprovals`` in the PostgreSQL database at ``url``.

    Construction is free: the connection is opened, and the schema migrated, by the first call
    that needs it. Thread-safe (one connection behind a lock); processes and machines share the
    database through PostgreSQL's transactions. A broken connection is reopened on next use.
    """

    ops = PostgresOperations()

    def __init__(self, url: str, *, connect_timeout: int = 10) -> None:
        super().__init__()
        self.url = url
        self._connect_timeout = connect_timeout

    def __repr__(self) -> str:
        return f"PostgresRunStore({masked_url(self.url)!r})"

    @property
    def _where(self) -> str:
        return masked_url(self.url)

    def _driver_errors(self) -> tuple[type[Exception], type[Exception]]:
        psycopg = import_psycopg()
        return psycopg.Error, psycopg.IntegrityError

    def _open(self) -> psycopg.Connection[tuple[Any, ...]]:
        psycopg = import_psycopg()
        try:
            return psycopg.connect(self.url, autocommit=True, connect_timeout=self._connect_timeout)
        except psycopg.Error as error:
            message = f"cannot connect to the run log: {first_line(error)}"
            raise ConfigurationError(message, source=self._where) from None

    def _prepare(self, conn: psycopg.Connection[tuple[Any, ...]]) -> None:
        migrate(conn, self._where)

    def _transaction(self, conn: psycopg.Connection[tuple[Any, ...]]) -> AbstractContextManager[Any]:
        return conn.transaction()

    def _usable(self, conn: psycopg.Connection[tuple[Any, ...]]) -> bool:
        return not (conn.broken or conn.closed)
