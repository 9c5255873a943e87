"""A delegation's events in its parent's stream: tagged with the child's run id, kept out of its conversation."""

from __future__ import annotations

from quorum.application.history import rebuild_history
from quorum.domain.events import (
    RunFinished,
    RunStarted,
    TextDelta,
    ToolCallEvent,
    ToolResultEvent,
    TurnStarted,
    delegated,
    own_events,
)
from quorum.domain.responses import RunUsage
from quorum.domain.tools import RiskLevel


def _stream() -> list[object]:
    child = [
        RunStarted(run_id="child", model="m:c", task="look"),
        TurnStarted(turn=1),
        TextDelta(text="child words"),
        RunFinished(stop_reason="end_turn", turns=1, output="child words", usage=RunUsage()),
    ]
    return [
        RunStarted(run_id="parent", model="m:p", task="do it"),
        TurnStarted(turn=1),
        ToolCallEvent(id="d1", name="delegate", arguments={"agent": "a", "task": "look"}, risk=RiskLevel.LOW),
        *(delegated(event, "child") for event in child),
        ToolResultEvent(
            call_id="d1", name="delegate", is_error=False, is_rejected=False, output="child words", duration_ms=1
        ),
        TurnStarted(turn=2),
        TextDelta(text="done"),
        RunFinished(stop_reason="end_turn", turns=2, output="done", usage=RunUsage()),
    ]


def test_a_tagged_event_says_its_run_and_an_own_one_does_not() -> None:
    assert delegated(TurnStarted(turn=1), "child").model_dump(mode="json") == {
        "run_id": "child",
        "type": "turn_started",
        "turn": 1,
    }
    assert "run_id" not in TurnStarted(turn=1).model_dump(mode="json")


def test_the_parents_conversation_leaves_its_childrens_events_out() -> None:
    stream = _stream()

    own = own_events(stream)

    assert len(own) == 7 and all(getattr(e, "run_id", None) in (None, "parent") for e in own)
    texts = [block.text for message in rebuild_history(stream) for block in message.content if hasattr(block, "text")]
    assert "child words" not in texts[:-1] and texts[0] == "do it" and texts[-1] == "done"
