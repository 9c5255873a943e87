"""The pure parts of ``quorum chat``: slash parsing and completion, the conversation, the spending."""

from __future__ import annotations

import pytest

from quorum.cli.chat import slash
from quorum.cli.chat.conversation import Conversation, SessionSpending
from quorum.domain.events import RunFinished, RunStarted, TextDelta, ToolCallEvent, ToolResultEvent, TurnStarted
from quorum.domain.responses import RunUsage
from quorum.domain.tools import RiskLevel


def test_a_slash_line_is_a_command_but_a_path_or_a_lone_slash_is_a_message() -> None:
    assert slash.parse("/model  openai:gpt-4.1 ") == slash.SlashLine("/model", "openai:gpt-4.1")
    assert slash.parse("/EXIT") == slash.SlashLine("/exit", "")
    for message in ("/etc/passwd looks odd", "/ spaced", "//", "/", "hello /help", "/1"):
        assert slash.parse(message) is None, message


def test_commands_are_found_by_name_or_unique_prefix_and_unknown_ones_get_suggestions() -> None:
    assert slash.find("/u").name == "/usage"  # type: ignore[union-attr]
    assert slash.find("/re") is None  # /review and /resume
    assert "did you mean /review or /resume?" in slash.unknown_message("/re")
    assert "did you mean /model" in slash.unknown_message("/mdoel")
    assert "did you mean" not in slash.unknown_message("/zzz")


def test_completion_offers_commands_then_their_arguments() -> None:
    assert slash.completions("/re", []) == ["/review", "/resume"]
    assert slash.completions("/review auto_", []) == ["auto_approve", "auto_reject"]
    assert slash.completions("/model op", ["anthropic:x", "openai:gpt-4.1"]) == ["openai:gpt-4.1"]
    assert slash.completions("/usage x", ["a"]) == [] and slash.completions("hello", []) == []


def test_help_names_every_command() -> None:
    text = slash.help_text()
    assert all(command.name in text for command in slash.COMMANDS)


def _run(run_id: str, task: str, answer: str, *, cancelled_call: bool = False) -> list[object]:
    events: list[object] = [RunStarted(run_id=run_id, model="m", task=task), TurnStarted(turn=1)]
    events.append(TextDelta(text=answer))
    if cancelled_call:
        events.append(ToolCallEvent(id="c1", name="slow", arguments={}, risk=RiskLevel.LOW))
        events.append(
            ToolResultEvent(
                call_id="c1", name="slow", is_error=True, is_rejected=False, output="cancelled", duration_ms=1
            )
        )
    return events


def test_the_conversation_chains_runs_and_stays_valid_after_a_cancelled_call() -> None:
    conversation = Conversation()
    assert conversation.parent_run_id is None
    conversation.add_run("r1", _run("r1", "first", "one", cancelled_call=True))
    conversation.add_run("r2", _run("r2", "second", "two"))
    assert conversation.parent_run_id == "r2" and conversation.run_ids == ["r1", "r2"]
    roles = [message.role for message in conversation.history]
    assert roles == ["user", "assistant", "user", "assistant"]  # the cancelled result and "second" merged
    assert conversation.history[2].content[-1].text == "second"  # type: ignore[union-attr]


def test_a_resumed_conversation_continues_its_run() -> None:
    conversation = Conversation.resumed("old", [])
    assert conversation.parent_run_id == "old"
    conversation.add_run("new", _run("new", "go on", "ok"))
    assert conversation.parent_run_id == "new"


def _finished(tokens: int, reviewer: int, cost: float | None) -> RunFinished:
    usage = RunUsage(input_tokens=tokens, output_tokens=1, reviewer_input_tokens=reviewer, reviewer_output_tokens=0)
    return RunFinished(stop_reason="end_turn", turns=1, output="", usage=usage, cost=cost)


def test_spending_sums_agent_and_reviewer_tokens_and_says_when_a_price_is_unknown() -> None:
    spending = SessionSpending()
    spending.add(_finished(10, 5, 0.25))
    spending.add(_finished(20, 0, None))
    assert spending.describe() == (
        "2 runs · agent 32 tokens (30 in, 2 out) · reviewers 5 tokens (5 in, 0 out)"
        " · $0.2500 + 1 run(s) of unknown price"
    )
    unknown = SessionSpending()
    unknown.add(_finished(1, 0, None))
    assert unknown.describe().endswith("cost unknown (no prices for the model)")


def test_spending_keeps_the_cached_parts_of_each_runs_input() -> None:
    spending = SessionSpending()
    cached = RunUsage(input_tokens=3000, output_tokens=10, cache_read_input_tokens=2500, cache_write_input_tokens=400)
    spending.add(RunFinished(stop_reason="end_turn", turns=1, output="", usage=cached, cost=0.002))
    spending.add(_finished(100, 0, 0.001))

    assert (spending.usage.cache_read_input_tokens, spending.usage.cache_write_input_tokens) == (2500, 400)
    assert "agent 3,111 tokens (3,100 in (2,500 from cache, 400 to cache), 11 out)" in spending.describe()
    assert spending.cost == pytest.approx(0.003)


def test_undo_is_found_only_by_its_full_name() -> None:
    assert slash.find("/undo").name == "/undo"  # type: ignore[union-attr]
    assert slash.find("/und") is None  # a command that changes files is never run by a prefix
    assert slash.find("/u").name == "/usage"  # type: ignore[union-attr]
