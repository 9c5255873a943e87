"""Schema migrations on open, unusable files, and the ``sqlite`` store plugin."""

from __future__ import annotations

import json
import sqlite3
import threading
from pathlib import Path

import pytest

from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.plugins.contracts import StoreContext
from quorum.infrastructure.plugins.manager import load_plugins
from quorum.infrastructure.storage.plugin import database_path
from quorum.infrastructure.storage.schema import SCHEMA_VERSION
from quorum.infrastructure.storage.settings import StorageSettings
from quorum.infrastructure.storage.sqlite_store import SqliteRunStore
from tests.fakes import text
from tests.integration.storage.conftest import RecordedRun
from tests.integration.storage.shipped_ddl import SQLITE_SHIPPED
from tests.support.config import settings_with

# Schema version 1 and migration 2 exactly as they shipped: frozen copies, so editing the schema cannot hide here.
V1 = SQLITE_SHIPPED[0] + "PRAGMA user_version = 1;\n"
V2 = SQLITE_SHIPPED[1]


def make_v1_log(path: Path) -> None:
    """A version-1 log: a finished run whose text arrived in three deltas, and a killed one."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript(V1)
    conn.execute(
        "INSERT INTO runs (id, task, model, started_at, ended_at, stop_reason, output) VALUES"
        " ('old', 'an old task', 'openai:gpt-4o', 1700000000.0, 1700000005.0, 'end_turn', 'hi there')"
    )
    conn.execute("INSERT INTO runs (id, task, model, started_at) VALUES ('killed', 'x', 'openai:gpt-4o', 1700000100.0)")
    conn.executemany(
        "INSERT INTO events (run_id, seq, at, type, turn, data) VALUES ('killed', ?, 1700000100.0, ?, ?, ?)",
        [(0, "run_started", 0, '{"type":"run_started","run_id":"killed","model":"openai:gpt-4o","task":"x"}'),
         (1, "turn_started", 1, '{"type":"turn_started","turn":1}'),
         (2, "turn_finished", 1, '{"type":"turn_finished","turn":1}'),
         (3, "turn_started", 2, '{"type":"turn_started","turn":2}')],
    )  # fmt: skip
    events = [
        {"type": "run_started", "run_id": "old", "model": "openai:gpt-4o", "task": "an old task"},
        {"type": "turn_started", "turn": 1},
        {"type": "text", "text": "hi "},
        {"type": "text", "text": "the"},
        {"type": "text", "text": "re"},
        {"type": "turn_finished", "turn": 1},
        {"type": "run_finished", "stop_reason": "end_turn", "turns": 1, "output": "hi there",
         "usage": {"input_tokens": 3, "output_tokens": 2}, "detail": None},
    ]  # fmt: skip
    conn.executemany(
        "INSERT INTO events (run_id, seq, at, type, turn, data) VALUES ('old', ?, ?, ?, ?, ?)",
        [(i, 1700000000.0 + i, e["type"], 0 if i < 2 else 1, json.dumps(e)) for i, e in enumerate(events)],
    )
    conn.commit()
    conn.close()


def user_version(path: Path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("PRAGMA user_version").fetchone()[0]
    finally:
        conn.close()


def _finished_with(conn: sqlite3.Connection, usage: dict[str, int]) -> None:
    """Give the old log's run a ``run_finished`` event of ``usage`` (and a cost), then commit and close."""
    finished = {"type": "run_finished", "stop_reason": "end_turn", "turns": 1, "output": "hi there", "usage": usage,
                "detail": None, "cost": 0.0125}  # fmt: skip
    conn.execute("UPDATE events SET data = ? WHERE run_id = 'old' AND type = 'run_finished'", (json.dumps(finished),))
    conn.commit()
    conn.close()


async def test_a_version_2_log_gets_reviewer_tokens_and_cost_from_its_run_finished_events(db_path: Path) -> None:
    make_v1_log(db_path)
    conn = sqlite3.connect(db_path)
    conn.executescript(V2)
    conn.execute("PRAGMA user_version = 2")
    _finished_with(
        conn, {"input_tokens": 3, "output_tokens": 2, "reviewer_input_tokens": 40, "reviewer_output_tokens": 5}
    )
    run = SqliteRunStore(db_path).get_run("old")
    assert run is not None and (run.usage.reviewer_input_tokens, run.usage.reviewer_output_tokens) == (40, 5)
    assert run.cost == 0.0125


def test_an_old_log_gets_its_cache_tokens_from_its_run_finished_events(db_path: Path) -> None:
    make_v1_log(db_path)
    usage = {"input_tokens": 300, "output_tokens": 2, "cache_read_input_tokens": 250, "cache_write_input_tokens": 40}
    _finished_with(sqlite3.connect(db_path), usage)
    store = SqliteRunStore(db_path)
    run = store.get_run("old")
    store.close()
    assert run is not None
    assert (run.usage.cache_read_input_tokens, run.usage.cache_write_input_tokens) == (250, 40)


async def test_a_version_1_log_is_migrated_on_open_and_keeps_its_runs(db_path: Path) -> None:
    make_v1_log(db_path)
    store = SqliteRunStore(db_path)
    run = store.get_run("old")
    assert user_version(db_path) == SCHEMA_VERSION == 7
    assert run is not None and (run.status, run.output, run.parent_run_id) == ("end_turn", "hi there", None)
    assert run.subagent is None  # v7: the subagent a delegation ran
    assert run.turns == 1  # v2 tracks turns; the migration counted them from the events
    assert (run.usage.reviewer_input_tokens, run.cost) == (0, None)  # v3: reviewer tokens and cost, unknown here
    killed = store.get_run("killed")
    assert killed is not None and (killed.status, killed.turns) == ("interrupted", 2)
    assert [e.event.type for e in store.load_events("old")][:3] == ["run_started", "turn_started", "text"]
    hits = store.search("hi there")  # a match across the old text deltas
    assert [(h.where, h.turn) for h in hits] == [("output", None), ("text", 1)]

    cont = RecordedRun(store)
    cont.session.script = [text("continued")]
    await cont.run("more", run_id="new", history=tuple(store.load_history("old")), parent_run_id="old")
    assert [m.role for m in store.load_history("new")] == ["user", "assistant", "user", "assistant"]
    assert [r.run_id for r in store.list_runs()] == ["new", "killed", "old"]
    store.close()


def test_two_stores_opening_an_old_log_at_once_migrate_it_once(db_path: Path) -> None:
    make_v1_log(db_path)
    barrier = threading.Barrier(2)
    seen: list[object] = []

    def open_and_search() -> None:
        store = SqliteRunStore(db_path)
        barrier.wait(timeout=30)
        try:
            seen.append(len(store.search("hi there")))
        except Exception as error:
            seen.append(error)
        finally:
            store.close()

    threads = [threading.Thread(target=open_and_search) for _ in range(2)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert seen == [2, 2]
    assert user_version(db_path) == SCHEMA_VERSION


def test_a_log_from_a_newer_quorum_is_refused(db_path: Path) -> None:
    db_path.parent.mkdir(parents=True)
    conn = sqlite3.connect(db_path)
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(ConfigurationError, match="newer than this Quorum knows"):
        SqliteRunStore(db_path).list_runs()


def test_a_file_that_is_not_a_database_is_a_configuration_error(tmp_path: Path) -> None:
    path = tmp_path / "runs.db"
    path.write_bytes(b"this is not sqlite, just text " * 100)
    with pytest.raises(ConfigurationError, match=r"runs\.db.*not a database"):
        SqliteRunStore(path).list_runs()


def test_an_unwritable_location_is_a_configuration_error(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("x")
    with pytest.raises(ConfigurationError, match="cannot open the run log"):
        SqliteRunStore(blocker / "sub" / "runs.db").last_run_id()


def test_the_sqlite_plugin_registers_a_lazy_store_factory(tmp_path: Path) -> None:
    catalog = load_plugins(autoload=False)
    entry = catalog.stores.get("sqlite")
    assert entry is not None and entry.plugin == "quorum.sqlite"
    path = tmp_path / "deep" / "runs.db"
    store = entry.value(StoreContext(settings=Settings(), env={"QUORUM_DB": str(path)}))
    assert isinstance(store, SqliteRunStore) and store.path == path
    assert not path.parent.exists()  # nothing is opened until the store is used
    assert store.last_run_id() is None
    assert path.exists()
    store.close()


def test_the_database_path_prefers_quorum_db_then_the_setting_then_the_data_dir(tmp_path: Path) -> None:
    configured = settings_with(StorageSettings(path=tmp_path / "configured.db"))
    assert database_path(configured, {"QUORUM_DB": "/x/env.db"}, tmp_path) == Path("/x/env.db")
    assert database_path(configured, {}, tmp_path) == tmp_path / "configured.db"
    assert database_path(Settings(), {}, tmp_path / "data") == tmp_path / "data" / "runs.db"
    assert database_path(None, {}).parts[-2:] == ("quorum", "runs.db")
