"""Reasoning in the loop: the level reaches every request, kept blocks become ``reasoning`` events
(not the answer), the run log rebuilds them first in their turn, and a redacted one is not sent back."""

from __future__ import annotations

from typing import Any

import pytest

from quorum.application.history import rebuild_history
from quorum.domain.events import ReasoningEvent
from quorum.domain.responses import LlmResponse, ReasoningBlock, StopReason, TextBlock
from quorum.domain.secrets import Redactor, Secret
from quorum.domain.tools import ToolCall
from tests.fakes import text
from tests.unit.application.conftest import Harness

KEY = "sk-secret-0123456789abcdef"
SIGNED = ReasoningBlock(
    api="anthropic", wire={"type": "thinking", "thinking": "look first", "signature": "s1"}, text="look first"
)
HIDDEN = ReasoningBlock(api="anthropic", wire={"type": "redacted_thinking", "data": "d1"})


def thinking_then_call(*blocks: ReasoningBlock, say: str = "") -> LlmResponse:
    content: list[Any] = [*blocks, *([TextBlock(text=say)] if say else [])]
    content.append(ToolCall(native_id="c1", name="read", arguments={}))
    return LlmResponse(content=tuple(content), stop_reason=StopReason.tool_use())


async def read(args: dict[str, Any]) -> str:
    return "contents"


@pytest.mark.parametrize("stream", [True, False])
async def test_kept_reasoning_is_an_event_and_rebuilds_first_in_its_turn(h: Harness, stream: bool) -> None:
    h.tools.add("read", read)
    h.session.script = [thinking_then_call(SIGNED, HIDDEN, say="reading"), text("done")]

    result = await h.run(stream=stream, reasoning="high")

    assert result.output == "done"
    assert [t.reasoning for t in h.session.turns] == ["high", "high"]
    events = h.observer.of("reasoning")
    assert [(e.text, e.wire) for e in events] == [("look first", SIGNED.wire), ("", HIDDEN.wire)]
    assert rebuild_history(h.observer.events) == h.session.history()
    assert all(e.type != "text" or "look first" not in e.text for e in h.observer.events)


async def test_reasoning_is_off_unless_asked(h: Harness) -> None:
    h.session.script = [text("done")]
    await h.run()
    assert [t.reasoning for t in h.session.turns] == ["off"]


async def test_reasoning_holding_a_secret_is_redacted_and_not_sent_back(h: Harness) -> None:
    h.redactor = Redactor([Secret("OPENAI_API_KEY", KEY)])
    h.tools.add("read", read)
    leaky = ReasoningBlock(api="anthropic", wire={"type": "thinking", "thinking": f"the key {KEY}", "signature": "s"})
    h.session.script = [thinking_then_call(leaky, SIGNED), text("done")]

    await h.run(reasoning="low")

    first, second = h.observer.of("reasoning")
    assert first.redacted and KEY not in first.model_dump_json() and not second.redacted
    rebuilt = rebuild_history(h.observer.events)
    assert [b for b in rebuilt[1].content if isinstance(b, ReasoningBlock)] == [SIGNED]


def test_the_event_carries_the_block_as_received() -> None:
    event = ReasoningEvent.of(SIGNED)
    dumped = event.model_dump(mode="json")
    assert {k: dumped[k] for k in ("type", "text", "api", "wire", "redacted")} == {
        "type": "reasoning",
        "text": "look first",
        "api": "anthropic",
        "wire": SIGNED.wire,
        "redacted": False,
    }
    assert event.block() == SIGNED


def test_compaction_keeps_the_open_turns_reasoning_and_leaves_reasoning_out_of_the_summary() -> None:
    from quorum.application.compaction import elide_outputs, recent_start, transcript
    from quorum.domain.messages import Message
    from quorum.domain.tools import ToolResult

    call = ToolCall(native_id="c1", name="read", arguments={})
    result = ToolResult(call_id="c1", name="read", output="x" * 5000)
    history = [
        Message(role="user", content=(TextBlock(text="task"),)),
        Message(role="assistant", content=(SIGNED, call)),
        Message(role="user", content=(result.for_model(),)),
        Message(role="assistant", content=(HIDDEN, SIGNED, ToolCall(native_id="c2", name="read", arguments={}))),
        Message(role="user", content=(ToolResult(call_id="c2", name="read", output="y").for_model(),)),
    ]
    elided = elide_outputs(history).history
    assert elided[1].content[0] == SIGNED and elided[3] == history[3]
    assert elided[recent_start(elided)] == history[3]  # the open turn is in the verbatim tail
    assert "look first" not in transcript(history) and "called ?" not in transcript(history)
