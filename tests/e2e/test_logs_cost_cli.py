"""``logs show`` and ``stats`` show tokens (the reviewer models' apart) and cost."""

from __future__ import annotations

import json
from pathlib import Path

from quorum.domain.events import RunFinished, RunStarted, TurnStarted
from quorum.domain.responses import RunUsage
from quorum.infrastructure.storage.recorder import RunRecorder
from quorum.infrastructure.storage.sqlite_store import SqliteRunStore
from tests.e2e.conftest import Cli


def record(cli: Cli, run_id: str, usage: RunUsage, cost: float | None) -> None:
    store = SqliteRunStore(Path(cli.env["QUORUM_DB"]))
    recorder = RunRecorder(store)
    recorder.on_event(RunStarted(run_id=run_id, model="openai:gpt-4o", task=f"task {run_id}"))
    recorder.on_event(TurnStarted(turn=1))
    recorder.on_event(RunFinished(stop_reason="end_turn", turns=1, output="ok", usage=usage, cost=cost))
    store.close()


def test_logs_show_and_stats_print_tokens_with_reviewers_and_cost(cli: Cli) -> None:
    priced = RunUsage(input_tokens=1200, output_tokens=300, reviewer_input_tokens=800, reviewer_output_tokens=40)
    record(cli, "priced0000000001", priced, 0.0125)
    record(cli, "unpriced00000002", RunUsage(input_tokens=10, output_tokens=5), None)

    shown = cli("logs", "show", "priced0000000001")
    assert shown.code == 0, shown.stderr
    assert "tokens:    1,200 in, 300 out (reviewers 800 in, 40 out)" in shown.stdout
    assert "cost:      $0.0125" in shown.stdout
    assert "tokens 1,200 in, 300 out (reviewers 800 in, 40 out) · cost $0.0125" in shown.stdout
    assert "cost:      unknown" in cli("logs", "show", "unpriced00000002").stdout

    run = cli("logs", "show", "priced0000000001", "--json").events()[0]
    assert run["usage"]["reviewer_input_tokens"] == 800 and run["cost"] == 0.0125

    totals = json.loads(cli("stats", "--json").stdout)
    assert totals["usage"] == {
        "input_tokens": 1210,
        "output_tokens": 305,
        "cache_read_input_tokens": 0,
        "cache_write_input_tokens": 0,
        "reviewer_input_tokens": 800,
        "reviewer_output_tokens": 40,
    }
    assert (totals["cost"], totals["unpriced_runs"]) == (0.0125, 1)
    human = cli("stats").stdout
    assert "tokens:     1,210 in, 305 out (reviewers 800 in, 40 out)" in human
    assert "cost:       $0.0125 (1 run(s) without known prices not counted)" in human


def test_a_scripted_run_records_its_tokens_and_an_unknown_cost(cli: Cli) -> None:
    cli.write("s.json", json.dumps({"turns": [{"text": "hi", "usage": {"input_tokens": 7, "output_tokens": 2}}]}))
    result = cli("run", "--model", "scripted:s.json", "--json", "say hi")
    assert result.code == 0, result.stderr
    finished = result.events()[-1]
    assert finished["usage"] == {
        "input_tokens": 7,
        "output_tokens": 2,
        "cache_read_input_tokens": 0,
        "cache_write_input_tokens": 0,
        "reviewer_input_tokens": 0,
        "reviewer_output_tokens": 0,
    }
    assert finished["cost"] is None
    assert "cost:      unknown" in cli("logs", "show", "last").stdout
