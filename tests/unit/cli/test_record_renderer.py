"""``quorum logs show`` renders a recorded run through the renderer's table for recorded runs."""

from __future__ import annotations

import io
from datetime import UTC, datetime

from quorum.cli.render.human import HumanRenderer
from quorum.cli.render.record import RecordRenderer, when
from quorum.domain.events import (
    ApprovalRequested,
    ReviewEvent,
    RunEvent,
    RunFinished,
    StopDetail,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
    TurnStarted,
)
from quorum.domain.responses import RunUsage
from quorum.domain.review import Vote

AT = datetime(2026, 1, 31, 12, 0, 5, tzinfo=UTC)


def shown(*events: RunEvent) -> str:
    out = io.StringIO()
    renderer = RecordRenderer(out)
    for event in events:
        renderer.show(event, AT)
    renderer.close()
    return out.getvalue()


def test_a_recorded_run_reads_as_logs_show_always_printed_it() -> None:
    vote = Vote(reviewer="openai:gpt", verdict="approve", reason="fine", latency_ms=12.5)
    text = shown(
        TurnStarted(turn=1),
        TextDelta(text="Reading "),
        TextDelta(text="first.\nThen writing."),
        ToolCallEvent(id="c1", name="write_file", arguments={"path": "é.txt"}, risk="high"),
        ReviewEvent(
            call_id="c1",
            name="write_file",
            approved=True,
            decided_by="quorum",
            votes=[vote],
            reason="ok",
            rule="majority",
        ),
        ToolResultEvent(
            call_id="c1", name="write_file", is_error=False, is_rejected=False, output="a\nb", duration_ms=3
        ),
        RunFinished(
            stop_reason="max_turns",
            turns=1,
            output="partial",
            usage=RunUsage(input_tokens=1200, output_tokens=3),
            detail="the tool turn limit (1) was reached",
            cost=0.0125,
            stop=StopDetail(limit=1),
        ),
    )
    assert text == (
        f"\n── turn 1 ── {when(AT)}\n"
        "  model: Reading first.\n"
        "         Then writing.\n"
        '  → write_file [high] {"path": "é.txt"}  (id c1)\n'
        "    review of c1: approved by quorum, rule majority: ok\n"
        "      - openai:gpt: approve (12.5 ms) fine\n"
        "  ← write_file ok in 3 ms  (id c1)\n"
        "      a\n"
        "      b\n"
        "\n■ max_turns after 1 turn(s): the tool turn limit (1) was reached\n"
        "  tokens 1,200 in, 3 out · cost $0.0125\n"
        "partial\n"
    )


def test_outcomes_are_said_and_untrusted_text_is_escaped() -> None:
    result = ToolResultEvent(
        call_id="c2",
        name="run",
        is_error=True,
        is_rejected=False,
        output="\x1b[2Jgone",
        duration_ms=60000,
        outcome="timed_out",
    )
    text = shown(result)
    assert text == "  ← run timed out in 60000 ms  (id c2)\n      \\x1b[2Jgone\n"


def test_the_same_renderer_with_another_table() -> None:
    assert issubclass(RecordRenderer, HumanRenderer)
    assert RecordRenderer.HANDLERS is not HumanRenderer.HANDLERS
    assert ApprovalRequested not in RecordRenderer.HANDLERS  # logs show never printed these
