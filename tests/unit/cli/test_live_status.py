"""The live status lines: votes under a review, a running call's progress, groups; and the renderer feeding it."""

from __future__ import annotations

import io
import re

import pytest

from quorum.cli.render.human import HumanRenderer
from quorum.cli.render.live import LiveStatus
from quorum.domain.events import ReviewEvent, ToolCallEvent, ToolProgress, ToolResultEvent, VoteCast, VoteRecord
from quorum.domain.tools import RiskLevel

S = r"\d+\.\d s"  # an elapsed time


def status() -> LiveStatus:
    return LiveStatus(io.StringIO(), color=False)  # no running loop: nothing is drawn, lines are composed


def assert_lines(live: LiveStatus, *patterns: str) -> None:
    lines = live._lines()
    assert len(lines) == len(patterns), lines
    for line, pattern in zip(lines, patterns, strict=True):
        assert re.fullmatch(pattern, line), (line, pattern)


def test_votes_appear_under_the_review_as_they_arrive() -> None:
    live = status()
    live.call_announced("c1", "write_file", high_risk=True)
    assert_lines(live, f"reviewing write_file · {S}")
    live.call_voted("c1", "openai:gpt-4.1", "approve")
    assert_lines(live, f"reviewing write_file · {S} · ✓ gpt-4.1")
    live.call_voted("c1", "anthropic:claude-x", "reject")
    live.call_voted("c1", "human", "error")
    assert_lines(live, f"reviewing write_file · {S} · ✓ gpt-4.1 ✗ claude-x \\? human")
    live.call_approved("c1")
    assert_lines(live, f"running write_file · {S}")  # the votes belonged to the review


def test_a_vote_tells_which_call_is_under_review() -> None:
    live = status()
    live.call_announced("c1", "write_file", high_risk=True)
    live.call_announced("c2", "edit_file", high_risk=True)
    live.call_done("c1")  # rejected by a rule, say: c2 is next
    live.call_voted("c2", "m", "approve")
    assert_lines(live, f"reviewing edit_file · {S} · ✓ m")


def test_a_running_call_shows_its_latest_progress() -> None:
    live = status()
    live.call_announced("c1", "run_command", high_risk=False)
    live.call_progress("c1", "Compiling foo")
    live.call_progress("c1", "Compiling bar\x1b[2J\n  and more")
    assert_lines(live, f"running run_command · {S} · Compiling bar\\\\x1b\\[2J and more")
    live.call_progress("c1", "x" * 500)
    assert live._lines()[0].endswith(" · " + "x" * 119 + "…")
    live.call_progress("c2", "a call nobody announced")  # ignored, not drawn
    assert len(live._lines()) == 1


@pytest.mark.parametrize(
    ("progress", "total", "message", "shown"),
    [
        (40, 100, "", "40%"),
        (0.4, 1.0, "", "40%"),
        (3, 10, "files", "3/10 · files"),
        (7, None, "", "7"),
        (None, None, "starting MCP server docs", "starting MCP server docs"),
        (12, 10, "", "12/10"),
    ],
)
def test_numeric_progress_is_a_percentage_or_a_count(
    progress: float | None, total: float | None, message: str, shown: str
) -> None:
    live = status()
    live.call_announced("c1", "fetch", high_risk=False)
    live.call_progress("c1", message, progress, total)
    assert live._lines()[0].split(" · ", 2)[2] == shown


def test_parallel_calls_keep_one_line_each_with_their_own_progress() -> None:
    live = status()
    live.call_announced("c1", "run_command", high_risk=False)
    live.call_announced("c2", "docs_search", high_risk=False)
    live.call_progress("c2", "starting MCP server docs")
    live.call_progress("c1", "step 3")
    assert_lines(
        live,
        f"running run_command · {S} · step 3",
        f"running docs_search · {S} · starting MCP server docs",
    )
    live.call_done("c1")
    assert_lines(live, f"running docs_search · {S} · starting MCP server docs")


def test_the_renderer_feeds_votes_and_progress_to_the_status_and_prints_neither() -> None:
    out, err = io.StringIO(), io.StringIO()
    renderer = HumanRenderer(out, err, live=True)
    live = renderer._status
    assert live is not None
    renderer.on_event(ToolCallEvent(id="c1", name="write_file", arguments={}, risk=RiskLevel.HIGH))
    renderer.on_event(VoteCast(call_id="c1", reviewer="openai:gpt-4.1", verdict="approve", reason="fine"))
    renderer.on_event(VoteCast(call_id="c1", reviewer="anthropic:claude", verdict="reject", reason="risky"))
    assert_lines(live, f"reviewing write_file · {S} · ✓ gpt-4.1 ✗ claude")
    votes = [
        VoteRecord(reviewer="openai:gpt-4.1", verdict="approve", reason="fine"),
        VoteRecord(reviewer="anthropic:claude", verdict="reject", reason="risky"),
        VoteRecord(reviewer="google:gemini", verdict="approve", reason="fine"),
    ]
    review = ReviewEvent(call_id="c1", name="write_file", approved=True, decided_by="quorum", votes=votes, reason="ok")
    renderer.on_event(review)
    renderer.on_event(ToolProgress(call_id="c1", message="writing", progress=1, total=4))
    assert_lines(live, f"running write_file · {S} · 1/4 · writing")
    printed = err.getvalue()
    renderer.on_event(
        ToolResultEvent(
            call_id="c1", name="write_file", output="done", duration_ms=5, is_error=False, is_rejected=False
        )
    )
    assert live._lines() == []
    assert "writing" not in printed and "1/4" not in printed
    assert printed.count("claude") == 1  # only the review's dissent line names it, once


async def test_the_status_draws_a_progress_line_on_its_stream() -> None:
    err = io.StringIO()
    live = LiveStatus(err, color=False)
    live.call_announced("c1", "run_command", high_risk=False)
    live.call_progress("c1", "Compiling the_crate v0.1.0")
    live.close()
    assert "running run_command · " in err.getvalue() and "Compiling the_crate v0.1.0" in err.getvalue()
