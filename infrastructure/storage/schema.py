"""The run log's schema, written once for every SQL dialect: its tables, indexes and migrations.

Four tables. ``runs``: one row per run (its header, its current turn, and how it ended, written by
``run_finished``); ``runs.engine`` says where a run lives (NULL: the local engine). ``events``: every
run event as its ``--json`` form, in order: the source of truth; the conversation, tool and review
figures and search are read from it. ``decisions`` only claims people's decisions on deferred calls
(``approvals.py``): its primary key is what makes a call decided, and so executed, at most once.
``payloads`` holds large tool outputs of runs on the Temporal engine, referenced from workflow
history instead of copied into it. Times are seconds since the epoch, so both backends share their
read models.

Columns have logical types (``text``, ``int``, ``bigint``, ``float``, ``bool``, ``json``); the
dialect object (``operations.py``) spells them, and the rest of what the backends write
differently: a table kept in insertion order (``ordered``: SQLite's ``rowid``, PostgreSQL's
``ord BIGSERIAL``), and a table clustered on its key (SQLite's ``WITHOUT ROWID``).

Versions. ``SCHEMA_VERSION`` counts the schema's versions; a new log is created from ``TABLES`` and
``INDEXES`` as they are now, an older one is brought up by the ``MIGRATIONS`` after its version.
Each backend keeps its own counter and its own lock while migrating (``sqlite_schema.py``,
``postgres_schema.py``). Migrations are only ever appended; a shipped one, and a column a shipped
migration adds, is never edited: a change is a new migration.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Literal

from quorum.domain.errors import ConfigurationError

if TYPE_CHECKING:
    from quorum.infrastructure.storage.operations import Operations

ColumnType = Literal["text", "int", "bigint", "float", "bool", "json"]
"""A column's logical type; ``Operations.types`` spells each in the backend's SQL."""


@dataclass(frozen=True)
class Column:
    """One column: its name, logical type, whether it is ``NOT NULL``, its default and its reference."""

    name: str
    type: ColumnType
    not_null: bool = False
    default: str | None = None
    """An SQL literal, the same in every dialect."""
    references: str | None = None
    """``table(column)`` of a foreign key."""

    def ddl(self, ops: Operations) -> str:
        """The column's definition in ``ops``'s dialect (as ``CREATE TABLE`` and ``ADD COLUMN`` take it)."""
        parts = [self.name, ops.types[self.type]]
        if self.not_null:
            parts.append("NOT NULL")
        if self.default is not None:
            parts.append(f"DEFAULT {self.default}")
        if self.references is not None:
            parts.append(f"REFERENCES {self.references}")
        return " ".join(parts)


@dataclass(frozen=True)
class Table:
    """One table: its columns, its primary key, and whether its rows keep their insertion order."""

    name: str
    columns: tuple[Column, ...]
    key: tuple[str, ...]
    ordered: bool = False
    """Rows are ordered by insertion (``Operations.order``): a tie-break between equal keys of a sort."""

    def column(self, name: str) -> Column:
        """The column called ``name`` (a ``KeyError`` names a mistake in a migration)."""
        return {c.name: c for c in self.columns}[name]

    def ddl(self, ops: Operations, without: tuple[str, ...] = ()) -> str:
        """``CREATE TABLE`` in ``ops``'s dialect (``without`` the columns named, added by later migrations)."""
        lines = [c.ddl(ops) for c in self.columns if c.name not in without]
        if self.ordered and ops.order_column:
            lines.insert(1, ops.order_column)
        lines.append(f"PRIMARY KEY ({', '.join(self.key)})")
        body = ",\n    ".join(lines)
        suffix = "" if self.ordered else ops.clustered
        return f"CREATE TABLE {self.name} (\n    {body}\n){suffix}"


@dataclass(frozen=True)
class Index:
    """One index; ``then_order`` appends the table's insertion order, ``only`` limits it to one dialect."""

    name: str
    table: str
    columns: tuple[str, ...]
    then_order: bool = False
    only: str | None = None
    """The one dialect (``Operations.name``) that has this index, or None for all."""

    def ddl(self, ops: Operations) -> str:
        """``CREATE INDEX`` in ``ops``'s dialect."""
        columns = list(self.columns)
        if self.then_order and ops.order_column:  # SQLite's indexes end with the rowid already
            columns.append(ops.order)
        return f"CREATE INDEX {self.name} ON {self.table}({', '.join(columns)})"


TABLES: tuple[Table, ...] = (
    Table(
        "runs",
        (
            Column("id", "text"),
            Column("task", "text", not_null=True),
            Column("model", "text", not_null=True),
            Column("workspace", "text"),
            Column("config_digest", "text"),
            Column("parent_run_id", "text", references="runs(id)"),
            Column("started_at", "float", not_null=True),
            Column("ended_at", "float"),
            Column("stop_reason", "text"),
            Column("detail", "text"),
            Column("output", "text", not_null=True, default="''"),
            Column("turns", "int", not_null=True, default="0"),
            Column("input_tokens", "bigint", not_null=True, default="0"),
            Column("output_tokens", "bigint", not_null=True, default="0"),
            Column("reviewer_input_tokens", "bigint", not_null=True, default="0"),
            Column("reviewer_output_tokens", "bigint", not_null=True, default="0"),
            Column("cost", "float"),
            Column("engine", "text"),
            Column("cache_read_input_tokens", "bigint", not_null=True, default="0"),
            Column("cache_write_input_tokens", "bigint", not_null=True, default="0"),
            Column("subagent", "text"),
        ),
        key=("id",),
        ordered=True,
    ),
    Table(
        "events",
        (
            Column("run_id", "text", not_null=True, references="runs(id)"),
            Column("seq", "int", not_null=True),
            Column("at", "float", not_null=True),
            Column("type", "text", not_null=True),
            Column("turn", "int", not_null=True),
            Column("data", "json", not_null=True),
        ),
        key=("run_id", "seq"),
    ),
    Table(
        "decisions",
        (
            Column("run_id", "text", not_null=True, references="runs(id)"),
            Column("call_id", "text", not_null=True),
            Column("approved", "bool", not_null=True),
            Column("by", "text", not_null=True),
            Column("reason", "text", not_null=True, default="''"),
            Column("decided_at", "float", not_null=True),
            Column("decision_id", "text"),
        ),
        key=("run_id", "call_id"),
    ),
    Table(
        "payloads",
        (
            Column("run_id", "text", not_null=True),
            Column("key", "text", not_null=True),
            Column("data", "text", not_null=True),
        ),
        key=("run_id", "key"),
    ),
)
"""The tables as they are now, in creation order."""

INDEXES: tuple[Index, ...] = (
    Index("runs_by_start", "runs", ("started_at",), then_order=True),
    # PostgreSQL's log had it from its first version; SQLite's never did, and adding it there would
    # be a new version that older Quorums refuse to open.
    Index("events_by_type", "events", ("type",), only="postgres"),
)
"""The indexes as they are now."""

_TABLES = {t.name: t for t in TABLES}
_INDEXES = {i.name: i for i in INDEXES}

Step = Callable[["Operations"], str]
"""One statement of a migration, in a dialect."""


def add_column(table: str, column: str) -> Step:
    """``ALTER TABLE … ADD COLUMN`` of the declared ``column`` of ``table``."""
    return lambda ops: f"ALTER TABLE {table} ADD COLUMN {_TABLES[table].column(column).ddl(ops)}"


def create_table(table: str, without: tuple[str, ...] = ()) -> Step:
    """``CREATE TABLE`` of the declared ``table``, ``without`` the columns later migrations add."""
    return lambda ops: _TABLES[table].ddl(ops, without)


def create_index(index: str) -> Step:
    """``CREATE INDEX`` of the declared ``index``."""
    return lambda ops: _INDEXES[index].ddl(ops)


def _run_finished(ops: Operations, key: str, cast: str | None = None) -> str:
    """The ``key`` (a dotted path) of a run's ``run_finished`` event, as a scalar subquery (of type ``cast``)."""
    return (
        f"(SELECT {ops.json('data', key, cast)} FROM events"
        " WHERE events.run_id = runs.id AND events.type = 'run_finished')"
    )


@dataclass(frozen=True)
class Migration:
    """What brings a log from the version before ``version`` to ``version``."""

    version: int
    description: str
    steps: tuple[Step, ...]


MIGRATIONS: tuple[Migration, ...] = (
    Migration(
        2,
        "runs track their current turn (interrupted runs show how far they got) and the run they continue",
        (
            add_column("runs", "turns"),
            add_column("runs", "parent_run_id"),
            create_index("runs_by_start"),
            lambda ops: (
                "UPDATE runs SET turns = COALESCE((SELECT MAX(turn) FROM events WHERE events.run_id = runs.id), 0)"
            ),
        ),
    ),
    Migration(
        3,
        "runs record their reviewer models' tokens and their cost (USD, NULL when unknown)",
        (
            add_column("runs", "reviewer_input_tokens"),
            add_column("runs", "reviewer_output_tokens"),
            add_column("runs", "cost"),
            lambda ops: (
                "UPDATE runs SET"
                f" reviewer_input_tokens = COALESCE({_run_finished(ops, 'usage.reviewer_input_tokens')}, 0),"
                f" reviewer_output_tokens = COALESCE({_run_finished(ops, 'usage.reviewer_output_tokens')}, 0),"
                f" cost = {_run_finished(ops, 'cost')}"
            ),
        ),
    ),
    Migration(
        4,
        "people's decisions on deferred calls, each claimed once (quorum approve / reject)",
        (create_table("decisions", without=("decision_id",)),),
    ),
    Migration(
        5,
        "the engine a run lives on (NULL: local), a claim's id (a repeated claim is recognised), and large"
        " tool outputs of Temporal runs kept out of workflow history",
        (add_column("runs", "engine"), add_column("decisions", "decision_id"), create_table("payloads")),
    ),
    Migration(
        6,
        "runs record the parts of their input read from and written to a prompt cache (counted in input_tokens)",
        (
            add_column("runs", "cache_read_input_tokens"),
            add_column("runs", "cache_write_input_tokens"),
            lambda ops: (
                "UPDATE runs SET cache_read_input_tokens ="
                f" COALESCE({_run_finished(ops, 'usage.cache_read_input_tokens', 'bigint')}, 0),"
                " cache_write_input_tokens ="
                f" COALESCE({_run_finished(ops, 'usage.cache_write_input_tokens', 'bigint')}, 0)"
            ),
        ),
    ),
    Migration(
        7,
        "runs record the subagent a delegation ran (its parent_run_id is the run that delegated)",
        (add_column("runs", "subagent"),),
    ),
)
"""Each version after the first, in order. Version 1 held ``runs`` and ``events``."""

SCHEMA_VERSION = MIGRATIONS[-1].version


def creation(ops: Operations) -> list[str]:
    """The statements that create the schema, as it is now, in an empty database."""
    tables = [t.ddl(ops) for t in TABLES]
    return tables + [i.ddl(ops) for i in INDEXES if i.only in (None, ops.name)]


def upgrade(ops: Operations, version: int) -> list[str]:
    """The statements that bring a log at ``version`` (0: an empty database) to ``SCHEMA_VERSION``."""
    if version == 0:
        return creation(ops)
    return [step(ops) for m in MIGRATIONS if m.version > version for step in m.steps]


def refuse_newer(version: int, known: int, source: str, elsewhere: str) -> None:
    """Raise if a backend's counter ``version`` is past the ``known`` one (``elsewhere``: what to repoint).

    Raises:
        ConfigurationError: the log was written by a newer Quorum (a higher version).
    """
    if version > known:
        raise ConfigurationError(
            f"the run log has schema version {version}, newer than this Quorum knows ({known}); "
            f"upgrade Quorum or point {elsewhere} elsewhere",
            source=source,
        )
