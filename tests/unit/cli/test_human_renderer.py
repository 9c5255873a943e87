"""The human renderer shows untrusted text escaped: no escape sequence or bidi override reaches the terminal."""

from __future__ import annotations

import io

import pytest

from quorum.cli.render.human import HumanRenderer
from quorum.domain.events import (
    ApprovalRequested,
    ReviewEvent,
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
    VoteRecord,
)
from quorum.domain.responses import Usage
from quorum.domain.tools import RiskLevel

HOSTILE = "a\x1b]52;c;ZXZpbA==\x07b\x1b[2Jc\x9b31md\u202eevil\u2066e\r"
RAW = ("\x1b", "\x9b", "\u202e", "\u2066", "\x07", "\r")


def render(verbosity: int) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    renderer = HumanRenderer(out, err, verbosity=verbosity)
    for event in (
        RunStarted(run_id="r1", model="scripted:" + HOSTILE, task=HOSTILE),
        TextDelta(text="line one\n\tline two " + HOSTILE),
        ToolCallEvent(id="c1", name="tool" + HOSTILE, arguments={"path": HOSTILE}, risk=RiskLevel.HIGH),
        ApprovalRequested(
            call_id="c0",
            name="tool",
            arguments={},
            risk=RiskLevel.HIGH,
            reason="deferred: " + HOSTILE,
            votes=[VoteRecord(reviewer="v" + HOSTILE, verdict="reject", reason=HOSTILE)],
        ),
        ReviewEvent(
            call_id="c1",
            name="tool",
            approved=False,
            decided_by="quorum",
            votes=[VoteRecord(reviewer="m" + HOSTILE, verdict="reject", reason=HOSTILE)],
            reason=HOSTILE,
        ),
        ToolResultEvent(call_id="c1", name="tool", is_error=False, is_rejected=False, output=HOSTILE, duration_ms=1),
        RunFinished(stop_reason="error", turns=1, output=HOSTILE, usage=Usage(), detail=HOSTILE),
    ):
        renderer.on_event(event)
    renderer.close()
    return out.getvalue(), err.getvalue()


@pytest.mark.parametrize("verbosity", [-1, 0, 1])
def test_control_sequences_and_bidi_overrides_are_shown_escaped(verbosity: int) -> None:
    out, err = render(verbosity)
    for raw in RAW:
        assert raw not in out and raw not in err, f"{raw!r} printed raw"
    assert "\\x1b]52;c;ZXZpbA==\\x07" in out and "\\x9b31m" in out and "\\u202e" in out
    if verbosity >= 0:
        assert "\\x1b[2J" in err and "\\u202eevil" in err


def test_newlines_and_tabs_of_the_answer_are_kept() -> None:
    out, _ = render(0)
    assert out.startswith("line one\n\tline two a")


def test_a_deferred_call_is_said_once_with_its_reason_and_the_votes_so_far() -> None:
    out, err = io.StringIO(), io.StringIO()
    renderer = HumanRenderer(out, err)
    vote = VoteRecord(reviewer="gpt", verdict="reject", reason="writes outside the task")
    renderer.on_event(
        ApprovalRequested(
            call_id="c1", name="write_file", arguments={}, risk=RiskLevel.HIGH, reason="the panel split", votes=[vote]
        )
    )
    renderer.close()
    lines = err.getvalue().splitlines()
    assert lines == ["  ⏸ waiting for a person: the panel split", "      gpt (reject): writes outside the task"]


def test_a_compaction_is_one_line() -> None:
    from quorum.domain.events import ContextCompacted

    out, err = io.StringIO(), io.StringIO()
    renderer = HumanRenderer(out, err)
    renderer.on_event(ContextCompacted(turn=3, tokens_before=26_012, tokens_after=9_480, messages_compacted=7))
    renderer.close()
    shown = (out.getvalue() + err.getvalue()).splitlines()
    assert shown == ["  context compacted: ~26,012 → ~9,480 tokens (7 messages; the run log keeps them whole)"]


def test_a_fallback_is_one_line_naming_both_models() -> None:
    from quorum.domain.events import ModelFallback

    out, err = io.StringIO(), io.StringIO()
    renderer = HumanRenderer(out, err)
    renderer.on_event(ModelFallback.model_validate({"from": "a:x", "to": "b:y", "reason": "rate_limited"}))
    renderer.on_event(
        ModelFallback.model_validate({"from": "c:x", "to": "d:y", "reason": "timeout", "reviewer": "c:x [2]"})
    )
    renderer.close()
    assert err.getvalue().splitlines() == [
        "  model a:x is rate-limiting requests: answering with b:y from now on",
        "  reviewer c:x [2]: model c:x timed out: answering with d:y from now on",
    ]
