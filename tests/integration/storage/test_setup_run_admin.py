"""Run-log upkeep for ``logs show PREFIX``, ``logs list`` filters and ``logs rm``, on both real backends."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from quorum.application.ports.run_store import RunHeader
from quorum.cli.run_log import resolve_run_id
from quorum.domain.errors import UsageError
from tests.integration.storage.conftest import Backend


@pytest.fixture
def store(backend: Backend) -> Iterator[Any]:
    store = backend.open()
    for day, (run_id, model, parent) in enumerate(
        [("abc111", "openai:gpt-4.1-mini", None), ("abc222", "scripted:demo", "abc111"), ("def333", "test", None)], 1
    ):
        started = datetime(2025, 1, day, tzinfo=UTC)
        store.start_run(
            RunHeader(
                run_id=run_id, task=f"task {run_id} 50%_off", model=model, parent_run_id=parent, started_at=started
            )
        )
    yield store


def test_a_unique_prefix_names_a_run_and_a_shared_one_lists_candidates(store: Any) -> None:
    assert resolve_run_id(store, "abc2") == "abc222"
    assert resolve_run_id(store, "last") == "def333"
    with pytest.raises(UsageError, match=r"ambiguous: abc222, abc111"):
        resolve_run_id(store, "abc")
    with pytest.raises(UsageError, match="no run"):
        resolve_run_id(store, "x")


def test_list_filters_by_model_date_and_text_with_wildcards_taken_literally(store: Any) -> None:
    assert [r.run_id for r in store.list_runs(model="OPENAI")] == ["abc111"]
    assert [r.run_id for r in store.list_runs(since=datetime(2025, 1, 2, tzinfo=UTC))] == ["def333", "abc222"]
    assert [r.run_id for r in store.list_runs(text="abc2")] == ["abc222"]
    assert len(store.list_runs(text="50%_off")) == 3 and store.list_runs(text="5_%") == []
    assert [r.run_id for r in store.list_runs(1, model="abc", text="x")] == []


def test_delete_removes_runs_and_clears_links_to_them(store: Any) -> None:
    store.put_payload("abc111", "out-1", "a large tool output")
    store.put_payload("abc222", "out-1", "kept")
    assert store.delete_runs(["abc111", "nope"]) == 1
    assert store.get_payload("abc111", "out-1") is None and store.get_payload("abc222", "out-1") == "kept"
    assert store.get_run("abc111") is None
    child = store.get_run("abc222")
    assert child is not None and child.parent_run_id is None
    assert store.load_history("abc222") == []
