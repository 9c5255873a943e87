"""SqliteRunStore: the run log in one SQLite file, shared safely by concurrent runs.

Durability: WAL journal with ``synchronous=NORMAL``. Every ``append_events`` is one committed
transaction, and a commit in WAL mode has reached the OS (the WAL file) before it returns, so a
process killed at any point, SIGKILL included, loses nothing it committed; only a power loss may
drop the last few transactions, and the file stays consistent even then. Writers wait for each other
(``busy_timeout``) and take the write lock up front (``BEGIN IMMEDIATE``) so no transaction has to be
retried halfway.
"""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.storage.operations import SqliteOperations
from quorum.infrastructure.storage.sql_store import SqlRunStore
from quorum.infrastructure.storage.sqlite_schema import migrate

WAL_AUTOCHECKPOINT_PAGES = 8192
WAL_SIZE_LIMIT_BYTES = 8 * 1024 * 1024
"""The WAL is truncated back to this size after a checkpoint."""


class SqliteRunStore(SqlRunStore):
    """A ``RunStore`` and ``PendingApprovals`` over the SQLite file at ``path`` (created on first use).

    Construction is free: the file is opened, and migrated, by the first call that needs it.
    Thread-safe (one connection behind a lock); processes share the file through SQLite's locks.
    """

    ops = SqliteOperations()

    def __init__(self, path: Path, *, busy_timeout: float = 10.0) -> None:
        super().__init__()
        self.path = Path(path)
        self._busy_timeout = busy_timeout

    def __repr__(self) -> str:
        return f"SqliteRunStore({str(self.path)!r})"

    @property
    def _where(self) -> str:
        return str(self.path)

    def _driver_errors(self) -> tuple[type[Exception], type[Exception]]:
        return sqlite3.Error, sqlite3.IntegrityError

    def _open(self) -> sqlite3.Connection:
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            return sqlite3.connect(self.path, timeout=self._busy_timeout, isolation_level=None, check_same_thread=False)
        except (OSError, sqlite3.Error) as error:
            raise ConfigurationError(f"cannot open the run log: {error}", source=self._where) from None

    def _prepare(self, conn: sqlite3.Connection) -> None:
        self._enable_wal(conn)
        conn.execute("PRAGMA synchronous = NORMAL")
        # Checkpoints (the only fsyncs) copy each page once however often the WAL holds it, so
        # fewer of them cost less in all: every 8192 pages instead of SQLite's 1000.
        conn.execute(f"PRAGMA wal_autocheckpoint = {WAL_AUTOCHECKPOINT_PAGES}")
        conn.execute(f"PRAGMA journal_size_limit = {WAL_SIZE_LIMIT_BYTES}")
        conn.execute("PRAGMA foreign_keys = ON")
        migrate(conn, self._where)

    def _enable_wal(self, conn: sqlite3.Connection) -> None:
        """Switch the file to WAL (once per file; it persists).

        SQLite does not call the busy handler for this switch, so when several processes create
        the log at once the losers are retried here, within the same busy timeout.
        """
        deadline = time.monotonic() + self._busy_timeout
        while True:
            try:
                if conn.execute("PRAGMA journal_mode").fetchone()[0].lower() != "wal":
                    conn.execute("PRAGMA journal_mode = WAL")
                return
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) or time.monotonic() > deadline:
                    raise
                time.sleep(0.005)

    @contextmanager
    def _transaction(self, conn: sqlite3.Connection) -> Iterator[None]:
        # The write lock is taken up front, so no transaction waits halfway for another writer.
        conn.execute("BEGIN IMMEDIATE")
        try:
            yield
            conn.execute("COMMIT")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
