"""A run recorded by RunRecorder into SQLite reads back exactly as it was emitted."""

from __future__ import annotations

import asyncio
import itertools
from typing import Any

import pytest

from quorum.application.history import continuation, unanswered_calls
from quorum.domain.errors import UsageError
from quorum.domain.messages import Message
from quorum.domain.responses import RunUsage, TextBlock, Usage
from quorum.domain.review import ReviewDecision, Verdict, Vote
from quorum.domain.tools import RiskLevel, ToolCall
from tests.fakes import calls, text
from tests.integration.storage.conftest import Backend, RecordedRun
from tests.support.call_ids import with_live_ids


async def echo(args: dict[str, Any]) -> str:
    return f"echo {args}"


async def fail(_: dict[str, Any]) -> str:
    raise RuntimeError("disk on fire")


class PanelReviewer:
    """Two reviewers with latencies; rejects calls whose path starts with /etc."""

    def screen(self, call: ToolCall, tool: Any) -> None:
        return None  # no policy rules

    async def review(self, call: ToolCall, context: Any) -> ReviewDecision:
        ok = not str(call.arguments.get("p", "")).startswith("/etc")
        votes = (
            Vote(
                reviewer="openai:gpt",
                verdict=Verdict.APPROVE if ok else Verdict.REJECT,
                reason="r1",
                latency=0.25,
            ),
            Vote(reviewer="anthropic:claude", verdict=Verdict.APPROVE if ok else Verdict.ERROR, latency=1.5),
        )
        return ReviewDecision(approved=ok, decided_by="quorum", votes=votes, rule="majority", reason="counted")


def script_three_turns(r: RecordedRun) -> None:
    r.tools.add("read", echo)
    r.tools.add("broken", fail)
    r.tools.add("write", echo, risk=RiskLevel.HIGH)
    r.reviewer = PanelReviewer()
    r.session.script = [
        calls(
            ("read", {"p": "a.txt"}),
            ("write", {"p": "/etc/passwd"}),
            say="Looking at the files",
            usage=Usage(input_tokens=10, output_tokens=5),
        ),
        calls(
            ("broken", {}),
            ("write", {"p": "out.txt"}),
            ("nope", {"x": 1}),
            usage=Usage(input_tokens=20, output_tokens=7),
        ),
        text("All done: wrote out.txt", usage=Usage(input_tokens=30, output_tokens=9)),
    ]


@pytest.mark.parametrize("stream", [True, False])
async def test_recorded_events_equal_the_emitted_events(recorded: RecordedRun, stream: bool) -> None:
    script_three_turns(recorded)
    result = await recorded.run(stream=stream)
    assert result.stop_reason == "end_turn"
    stored = recorded.store.load_events("run-1")
    assert [e.event for e in stored] == recorded.seen.events
    assert [e.seq for e in stored] == list(range(len(stored)))
    assert all(a.at <= b.at for a, b in itertools.pairwise(stored))


async def test_events_after_a_number_are_the_rest_of_the_run(recorded: RecordedRun) -> None:
    script_three_turns(recorded)
    await recorded.run()
    every = recorded.store.load_events("run-1")
    for after in (0, 3, len(every) - 1, len(every) + 5):
        assert recorded.store.load_events("run-1", after=after) == [e for e in every if e.seq > after]


async def test_a_fresh_store_on_the_same_log_reads_the_same_run(recorded: RecordedRun, backend: Backend) -> None:
    script_three_turns(recorded)
    await recorded.run()
    other = backend.open()
    try:
        assert [e.event for e in other.load_events("run-1")] == recorded.seen.events
        run = other.get_run("run-1")
    finally:
        other.close()
    assert run is not None
    assert (run.task, run.model, run.workspace, run.config_digest) == (
        "do it",
        "fake:model",
        "/tmp/ws",
        "sha256:abc",
    )
    assert (run.status, run.turns, run.tool_calls, run.output) == (
        "end_turn",
        3,
        5,
        "All done: wrote out.txt",
    )
    assert run.usage == RunUsage(input_tokens=60, output_tokens=21) and run.cost is None
    assert run.ended_at is not None and run.ended_at >= run.started_at


async def test_history_of_a_recorded_run_equals_the_session_history(recorded: RecordedRun) -> None:
    script_three_turns(recorded)
    await recorded.run()
    live = recorded.session.history()  # the fake model reuses c1, c2 in each turn: recorded as c1_2, c2_2
    assert with_live_ids(recorded.store.load_history("run-1"), live) == live


async def test_votes_with_latency_and_decisions_are_recorded(recorded: RecordedRun) -> None:
    script_three_turns(recorded)
    await recorded.run()
    reviews = [e.event for e in recorded.store.load_events("run-1") if e.event.type == "review"]
    assert [(r.call_id, r.approved, r.decided_by, r.rule) for r in reviews] == [
        ("c2", False, "quorum", "majority"),
        ("c2_2", True, "quorum", "majority"),  # the fake model reused c2 in the next turn
    ]
    assert [(v.reviewer, v.verdict, v.latency_ms) for v in reviews[0].votes] == [
        ("openai:gpt", "reject", 250.0),
        ("anthropic:claude", "error", 1500.0),
    ]


async def test_stats_count_tools_errors_and_approvals(recorded: RecordedRun) -> None:
    script_three_turns(recorded)
    await recorded.run()
    stats = recorded.store.stats()
    assert (stats.runs, stats.turns, stats.tool_calls, stats.runs_by_status) == (1, 3, 5, {"end_turn": 1})
    tools = {t.name: t for t in stats.tools}
    assert (tools["write"].calls, tools["write"].errors, tools["write"].rejected) == (2, 1, 1)
    assert tools["broken"].error_rate == 1.0 and tools["read"].error_rate == 0.0
    assert tools["nope"].errors == 1
    reviewers = {r.reviewer: r for r in stats.reviewers}
    assert (reviewers["openai:gpt"].votes, reviewers["openai:gpt"].approval_rate) == (2, 0.5)
    assert (reviewers["anthropic:claude"].errors, reviewers["anthropic:claude"].median_latency_ms) == (
        1,
        1500.0,
    )
    assert stats.decisions_by == {"quorum": 2}


async def test_search_finds_text_across_streamed_deltas_and_tool_output(recorded: RecordedRun) -> None:
    script_three_turns(recorded)
    await recorded.run(stream=True)  # the fake streams text three characters at a time
    hits = recorded.store.search("LOOKING AT THE")
    assert [(h.run_id, h.where, h.turn) for h in hits] == [("run-1", "text", 1)]
    assert "Looking at the files" in hits[0].excerpt
    assert {h.where for h in recorded.store.search("disk on fire")} == {"tool_result"}
    assert {h.where for h in recorded.store.search("/etc/passwd")} == {"tool_call"}
    assert {h.where for h in recorded.store.search("counted")} == {"review", "tool_result"}  # the rejection
    assert recorded.store.search("100%") == []  # LIKE wildcards are literal


async def test_runs_are_listed_newest_first_and_last_run_id_follows(store: Any) -> None:
    for n in range(3):
        r = RecordedRun(store)
        r.session.script = [text(f"answer {n}")]
        await r.run(f"task {n}", run_id=f"run-{n}")
    assert [s.run_id for s in store.list_runs()] == ["run-2", "run-1", "run-0"]
    assert [s.run_id for s in store.list_runs(limit=2)] == ["run-2", "run-1"]
    assert store.last_run_id() == "run-2"


async def test_a_continued_run_carries_the_whole_conversation(store: Any) -> None:
    first = RecordedRun(store)
    first.tools.add("read", echo)
    first.session.script = [calls(("read", {"p": "x"})), text("x says hi")]
    await first.run("read x", run_id="run-a")

    second = RecordedRun(store)
    second.session.script = [text("it said hi")]
    history = tuple(store.load_history("run-a"))
    await second.run("what did x say?", run_id="run-b", history=history, parent_run_id="run-a")

    assert store.get_run("run-b").parent_run_id == "run-a"  # type: ignore[union-attr]
    assert store.load_history("run-b") == second.session.history()
    assert store.load_history("run-b")[-2:] == [
        Message(role="user", content=(TextBlock(text="what did x say?"),)),
        Message(role="assistant", content=(TextBlock(text="it said hi"),)),
    ]


async def test_continuing_a_run_that_stopped_on_tool_results_merges_the_user_turns(
    store: Any,
) -> None:
    first = RecordedRun(store)
    first.tools.add("rm", echo, risk=RiskLevel.HIGH)
    first.reviewer = PanelReviewer()
    first.session.script = [calls(("rm", {"p": "/etc/a"}))]
    await first.run("clean", run_id="run-a", max_rejections=1)
    assert store.get_run("run-a").status == "rejected"  # type: ignore[union-attr]

    second = RecordedRun(store)
    second.session.script = [text("ok")]
    await second.run(
        "try /tmp instead", run_id="run-b", history=tuple(store.load_history("run-a")), parent_run_id="run-a"
    )
    history = store.load_history("run-b")
    assert [m.role for m in history] == ["user", "assistant", "user", "assistant"]
    assert [b.type for b in history[2].content] == ["tool_result", "text"]
    assert unanswered_calls(history) == []


async def test_a_cancelled_run_is_recorded_to_its_end(recorded: RecordedRun) -> None:
    started = asyncio.Event()

    async def block(_: dict[str, Any]) -> str:
        started.set()
        await asyncio.Event().wait()
        return "never"

    recorded.tools.add("block", block)
    recorded.session.script = [calls(("block", {}))]
    task = asyncio.create_task(recorded.run())
    await started.wait()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    assert [e.event for e in recorded.store.load_events("run-1")] == recorded.seen.events
    assert recorded.store.get_run("run-1").status == "cancelled"  # type: ignore[union-attr]


def test_unknown_runs(store: Any) -> None:
    assert store.get_run("nope") is None
    assert store.load_events("nope") == []
    assert store.last_run_id() is None
    with pytest.raises(UsageError, match="no run 'nope'"):
        store.load_history("nope")


async def test_a_run_id_cannot_be_recorded_twice(recorded: RecordedRun) -> None:
    recorded.session.script = [text("one")]
    await recorded.run()
    again = RecordedRun(recorded.store)
    again.session.script = [text("two")]
    result = await again.run()
    assert result.output == "two"  # recording failures never stop a run
    assert isinstance(again.recorder.error, UsageError)  # type: ignore[union-attr]
    assert recorded.store.get_run("run-1").output == "one"  # type: ignore[union-attr]


async def test_continuation_of_the_last_run_or_a_named_one(store: Any) -> None:
    with pytest.raises(UsageError, match="the run log is empty"):
        continuation(store)
    for run_id, answer in (("run-a", "first"), ("run-b", "second")):
        r = RecordedRun(store)
        r.session.script = [text(answer)]
        await r.run(f"task of {run_id}", run_id=run_id)
    last = continuation(store)
    assert (last.parent_run_id, last.model, last.task) == ("run-b", "fake:model", "task of run-b")
    assert last.status == "end_turn"
    assert last.history[-1] == Message(role="assistant", content=(TextBlock(text="second"),))
    assert continuation(store, "run-a").history == tuple(store.load_history("run-a"))
    with pytest.raises(UsageError, match="no run 'zzz'"):
        continuation(store, "zzz")
