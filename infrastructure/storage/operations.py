"""The SQL dialects of the run log: what differs between SQLite and PostgreSQL, and nothing else.

The run store's statements (``sql_store.py``, ``queries.py``, ``approvals.py``, ``writer.py``)
are written once, with ``?`` placeholders and the expressions below for whatever the two backends
spell differently: parameter marks, case-insensitive ``LIKE``, reading a JSON field, a list
parameter, the insertion-order column, row locks. The schema (``schema.py``) is written once too,
in logical column types this object spells, as it spells the insertion-order column and tables
stored by their key. One ``Operations`` object per backend carries them, as django's
``db/backends/base/operations.py`` and its vendor subclasses do. Connections and transactions are
the stores' own (``sqlite_store.py``, ``postgres_store.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, ClassVar, Protocol


class SqlConnection(Protocol):
    """What both drivers' connections offer (``sqlite3`` and ``psycopg``): statements and cursors."""

    def execute(self, sql: Any, params: Any = ..., /) -> Any: ...

    def cursor(self) -> Any: ...


class Operations:
    """The dialect of one backend. Subclasses set the attributes and override what differs.

    Attributes:
        name: the dialect's name (``sqlite``, ``postgres``), as ``schema.Index.only`` names it.
        types: the SQL type of each of the schema's logical column types.
        order: the column of ``runs`` that orders runs started in the same instant (insertion order).
        order_column: the definition of ``order`` in an ordered table's ``CREATE TABLE``, or ""
            where every table has it built in.
        clustered: appended to the ``CREATE TABLE`` of a table not kept in insertion order (stored
            by its primary key alone).
        lock_row: appended to a ``SELECT`` of one row to lock it until the transaction ends (a
            backend that locks the whole database per write transaction needs none).
    """

    name = ""
    types: ClassVar[Mapping[str, str]] = {}
    order = "rowid"
    order_column = ""
    clustered = ""
    lock_row = ""

    def sql(self, statement: str) -> str:
        """``statement`` (written with ``?`` placeholders) with the driver's parameter marks."""
        return statement

    def json(self, column: str, key: str, cast: str | None = None) -> str:
        """The JSON field ``key`` (a dotted path) of ``column`` as an SQL expression of text (or as ``cast``)."""
        raise NotImplementedError

    def elements(self, column: str, key: str, alias: str) -> tuple[str, str]:
        """(a ``FROM`` item over the elements of the JSON array ``key`` of ``column``, one element's column)."""
        raise NotImplementedError

    def text(self, column: str) -> str:
        """A JSON ``column`` as the text it was written as."""
        return column

    def null(self, sql_type: str) -> str:
        """A NULL of ``sql_type`` (a branch of ``UNION ALL`` whose other branches have that type)."""
        return "NULL"

    def contains(self, column: str) -> str:
        """The condition that ``column`` matches a pattern of ``figures.like`` (one ``?``), ignoring ASCII case."""
        raise NotImplementedError

    def starts_with(self, column: str) -> str:
        """The first ``?`` characters of ``column`` (compared with a prefix)."""
        raise NotImplementedError

    def one_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        """(the condition that ``column`` is one of ``values``, its parameters)."""
        raise NotImplementedError


class SqliteOperations(Operations):
    """SQLite: ``?`` marks, ``json_extract``/``json_each``, ``LIKE`` (ASCII case-insensitive), ``rowid``.

    JSON and booleans are stored as ``TEXT`` and ``INTEGER``; every integer is 64 bits; a table not
    kept in insertion order is ``WITHOUT ROWID``.
    """

    name = "sqlite"
    types: ClassVar[Mapping[str, str]] = {
        "text": "TEXT", "int": "INTEGER", "bigint": "INTEGER", "float": "REAL", "bool": "INTEGER", "json": "TEXT",
    }  # fmt: skip
    clustered = " WITHOUT ROWID"

    def json(self, column: str, key: str, cast: str | None = None) -> str:
        return f"json_extract({column}, '$.{key}')"  # JSON booleans and numbers come back as numbers

    def elements(self, column: str, key: str, alias: str) -> tuple[str, str]:
        return f"json_each({column}, '$.{key}') {alias}", f"{alias}.value"

    def contains(self, column: str) -> str:
        return f"{column} LIKE ? ESCAPE '\\'"

    def starts_with(self, column: str) -> str:
        return f"substr({column}, 1, ?)"

    def one_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{column} IN ({', '.join('?' * len(values))})", list(values)


class PostgresOperations(Operations):
    """PostgreSQL: ``%s`` marks, ``->>``/``json_array_elements``, ``ILIKE``, ``runs.ord``, ``FOR UPDATE``.

    Event data is ``json`` (kept as written), so ``->>`` returns the text SQLite's ``json_extract``
    does; numbers and booleans are cast where the read models need them. Runs are kept in insertion
    order by a ``BIGSERIAL`` column, ``ord``.
    """

    name = "postgres"
    types: ClassVar[Mapping[str, str]] = {
        "text": "TEXT", "int": "INTEGER", "bigint": "BIGINT", "float": "DOUBLE PRECISION", "bool": "BOOLEAN",
        "json": "JSON",
    }  # fmt: skip
    order = "ord"
    order_column = "ord BIGSERIAL NOT NULL"
    lock_row = " FOR UPDATE"

    def sql(self, statement: str) -> str:
        return statement.replace("?", "%s")  # our statements hold no literal ? or %

    def json(self, column: str, key: str, cast: str | None = None) -> str:
        path = key.split(".")
        value = f"({column}->>'{key}')" if len(path) == 1 else f"({column}#>>'{{{','.join(path)}}}')"
        return f"{value}::{cast}" if cast else value

    def elements(self, column: str, key: str, alias: str) -> tuple[str, str]:
        return f"json_array_elements({column}->'{key}') {alias}", alias

    def text(self, column: str) -> str:
        return f"{column}::text"

    def null(self, sql_type: str) -> str:
        return f"NULL::{sql_type}"

    def contains(self, column: str) -> str:
        return f"{column} ILIKE ?"  # ILIKE's escape character is the backslash, as figures.like writes

    def starts_with(self, column: str) -> str:
        return f"left({column}, ?)"

    def one_of(self, column: str, values: Sequence[Any]) -> tuple[str, list[Any]]:
        return f"{column} = ANY(?)", [list(values)]
