"""TurnInput: what one request sends, and the user message it adds to a history."""

from __future__ import annotations

import pytest

from quorum.application.ports.llm import TurnInput, results_message
from quorum.domain.messages import Message
from quorum.domain.responses import TextBlock
from quorum.domain.tools import ToolResult


def test_a_turn_sends_text_or_results_never_both() -> None:
    with pytest.raises(ValueError, match="not both"):
        TurnInput(text="hi", results=(ToolResult(call_id="c1", output="x"),))


def test_user_text_becomes_one_text_block() -> None:
    assert TurnInput.user("hi", []).message() == Message(role="user", content=(TextBlock(text="hi"),))


def test_results_join_as_the_model_sees_them_then_the_note() -> None:
    rejected = ToolResult(call_id="c1", name="rm", output="no", is_error=True, is_rejected=True, duration=0.25)
    message = TurnInput.answering([rejected], None, note="wrap up").message()
    assert message == Message(
        role="user",
        content=(ToolResult(call_id="c1", name="rm", output="no", is_error=True), TextBlock(text="wrap up")),
    )


def test_recording_no_results_adds_no_message() -> None:
    assert results_message([]) is None
