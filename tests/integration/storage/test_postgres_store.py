"""The PostgreSQL store beyond the shared contract: its schema, its plugin, its URL and its failures.

Against a real server started by the session (``postgres_server``); the contract tests shared with
SQLite are the ``backend``-parametrized tests beside this file.
"""

from __future__ import annotations

import subprocess
import sys
import threading
from datetime import UTC, datetime
from typing import Any

import psycopg
import pytest

from quorum.application.ports.run_store import RunHeader
from quorum.domain.errors import ConfigurationError
from quorum.infrastructure.config.schema import Settings
from quorum.infrastructure.plugins.contracts import StoreContext
from quorum.infrastructure.plugins.manager import load_plugins
from quorum.infrastructure.secrets import collect_secrets
from quorum.infrastructure.storage.postgres_schema import SCHEMA_VERSION
from quorum.infrastructure.storage.postgres_store import PostgresRunStore, masked_url
from quorum.infrastructure.storage.settings import StorageSettings
from tests.support.config import settings_with
from tests.support.postgres import PostgresServer

NOW = datetime(2025, 5, 1, tzinfo=UTC)


def postgres_settings(url: str) -> Settings:
    return settings_with(StorageSettings(backend="postgres", url=url))


def test_stores_opening_a_new_database_at_once_migrate_it_once(postgres_server: PostgresServer) -> None:
    url = postgres_server.new_database()
    stores = [PostgresRunStore(url) for _ in range(6)]
    barrier = threading.Barrier(len(stores))
    errors: list[BaseException] = []

    def open_and_write(index: int, store: PostgresRunStore) -> None:
        barrier.wait()
        try:
            store.start_run(RunHeader(run_id=f"r{index}", task="t", model="m:x", started_at=NOW))
        except BaseException as error:  # collected: the assertion below shows it
            errors.append(error)

    threads = [threading.Thread(target=open_and_write, args=(i, s)) for i, s in enumerate(stores)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert errors == []
    assert len(stores[0].list_runs(limit=100)) == 6
    with psycopg.connect(url) as conn:
        assert conn.execute("SELECT version FROM quorum_schema").fetchall() == [(SCHEMA_VERSION,)]
    for store in stores:
        store.close()


def test_a_database_from_a_newer_quorum_is_refused(postgres_server: PostgresServer) -> None:
    url = postgres_server.new_database()
    first = PostgresRunStore(url)
    first.last_run_id()
    first.close()
    with psycopg.connect(url, autocommit=True) as conn:
        conn.execute("UPDATE quorum_schema SET version = 99")
    with pytest.raises(ConfigurationError, match="schema version 99, newer"):
        PostgresRunStore(url).last_run_id()  # a refused connection is closed by the store


def test_an_unreachable_server_is_a_configuration_error_without_the_password(
    postgres_server: PostgresServer,
) -> None:
    wrong = postgres_server.url("postgres").replace(postgres_server.password, "not-the-Pa55word")
    with pytest.raises(ConfigurationError) as raised:
        PostgresRunStore(wrong).last_run_id()
    message = str(raised.value)
    assert "cannot connect to the run log" in message and "password authentication failed" in message
    assert "not-the-Pa55word" not in message and ":***@127.0.0.1" in message


def test_a_broken_connection_is_reopened_on_next_use(postgres_server: PostgresServer) -> None:
    url = postgres_server.new_database()
    store = PostgresRunStore(url)
    store.start_run(RunHeader(run_id="r1", task="t", model="m:x", started_at=NOW))
    with psycopg.connect(url, autocommit=True) as admin:  # the server drops the store's connection
        admin.execute("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE pid <> pg_backend_pid()")
    with pytest.raises(Exception, match="run log"):
        store.get_run("r1")
    run = store.get_run("r1")
    assert run is not None and run.task == "t"
    store.close()


def test_the_postgres_plugin_is_lazy_and_needs_a_url(postgres_server: PostgresServer) -> None:
    entry = load_plugins(autoload=False).stores.get("postgres")
    assert entry is not None and entry.plugin == "quorum.sqlite"
    with pytest.raises(ConfigurationError, match=r"storage\.url"):
        entry.value(StoreContext(settings=settings_with(StorageSettings(backend="postgres")), env={}))
    url = postgres_server.new_database()
    template = url.replace(postgres_server.password, "${TEST_PG_PASSWORD}")
    store: Any = entry.value(
        StoreContext(settings=postgres_settings(template), env={"TEST_PG_PASSWORD": postgres_server.password})
    )
    assert isinstance(store, PostgresRunStore) and store.url == url
    assert postgres_server.password not in repr(store)
    with psycopg.connect(url) as conn:  # nothing is created until the store is used
        assert conn.execute("SELECT to_regclass('quorum_schema')").fetchone() == (None,)
    assert store.last_run_id() is None
    store.close()


def test_the_url_password_and_its_variables_are_known_secrets() -> None:
    plain = collect_secrets(postgres_settings("postgresql://u:s3cr%40t-pw@db/q"), {})
    assert {s.value for s in plain.secrets} >= {"s3cr%40t-pw", "s3cr@t-pw"}
    assert "PGPASSWORD" in plain.env_names
    env = {"QPG": "from-env-pw", "PGPASSWORD": "libpq-pw"}
    templated = collect_secrets(postgres_settings("postgresql://u:${QPG}@db/q"), env)
    assert {s.value for s in templated.secrets} >= {"from-env-pw", "libpq-pw"}
    assert {"QPG", "PGPASSWORD"} <= templated.env_names
    assert (
        masked_url("postgresql://u:s3cr%40t-pw@db:5/q?sslmode=require") == "postgresql://u:***@db:5/q?sslmode=require"
    )


def test_without_psycopg_choosing_postgres_is_a_configuration_error() -> None:
    code = (
        "import sys; sys.modules['psycopg'] = None\n"
        "from quorum.infrastructure.config.schema import Settings\n"
        "from quorum.infrastructure.storage.settings import StorageSettings\n"
        "from quorum.infrastructure.plugins.contracts import StoreContext\n"
        "from quorum.infrastructure.storage.plugin import postgres_store\n"
        "storage = StorageSettings(backend='postgres', url='postgresql://u@h/d')\n"
        "settings = Settings(extensions={'storage': storage})\n"
        "postgres_store(StoreContext(settings=settings))\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode != 0
    assert "ConfigurationError" in result.stderr and 'pip install "quorum-agent[postgres]"' in result.stderr


def test_importing_quorum_and_the_store_plugin_does_not_import_psycopg() -> None:
    code = (
        "import sys, quorum, quorum.infrastructure.storage.plugin, quorum.cli.main\n"
        "assert 'psycopg' not in sys.modules, 'psycopg imported'\n"
    )
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert result.returncode == 0, result.stderr
