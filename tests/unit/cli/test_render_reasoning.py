"""Reasoning in human output: dimmed lines on stderr with ``-v``, never in the answer, nothing without ``-v``."""

from __future__ import annotations

import io

from quorum.cli.render.human import HumanRenderer
from quorum.cli.render.record import RecordRenderer
from quorum.domain.events import ReasoningEvent, TextDelta

THOUGHT = ReasoningEvent(text="first this\nthen that", api="anthropic", wire={"type": "thinking"})
HIDDEN = ReasoningEvent(text="", api="anthropic", wire={"type": "redacted_thinking", "data": "x"})


def rendered(verbosity: int, color: bool = False) -> tuple[str, str]:
    out, err = io.StringIO(), io.StringIO()
    renderer = HumanRenderer(out, err, verbosity=verbosity, color=color, live=False, markdown=False)
    for event in (THOUGHT, HIDDEN, TextDelta(text="The answer.")):
        renderer.on_event(event)
    renderer.close()
    return out.getvalue(), err.getvalue()


def test_verbose_output_shows_the_reasoning_dimmed_apart_from_the_answer() -> None:
    out, err = rendered(1, color=True)
    assert out.strip() == "The answer."
    assert "\x1b[2m  ∴ first this\x1b[0m" in err and "\x1b[2m  ∴ then that\x1b[0m" in err
    assert "not shown by the provider" in err


def test_default_output_shows_no_reasoning() -> None:
    out, err = rendered(0)
    assert out.strip() == "The answer." and "first this" not in err


def test_a_recorded_run_shows_its_reasoning() -> None:
    out = io.StringIO()
    renderer = RecordRenderer(out)
    renderer.show(THOUGHT)
    renderer.close()
    assert out.getvalue().splitlines() == ["  reasoning:", "      first this", "      then that"]
