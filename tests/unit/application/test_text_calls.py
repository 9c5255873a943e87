"""A tool call written as text is never the run's answer (issue 34), with a scripted session and fake tools."""

from __future__ import annotations

from typing import Any

import pytest

from quorum.application import model_wording as say
from quorum.application.text_calls import written_call
from tests.fakes import calls, text
from tests.unit.application.conftest import Harness

TOOLS = ("read_file", "edit_file")


@pytest.mark.parametrize(
    "answer",
    [
        '{"name": "read_file", "arguments": {"path": "a.txt"}}',
        '```json\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n```',
        '<tool_call>\n{"name": "read_file", "arguments": {"path": "a.txt"}}\n</tool_call>',
        '[TOOL_CALLS][{"name": "edit_file", "arguments": {}}]',
        '<|python_tag|>{"type": "function", "function": {"name": "read_file", "parameters": {}}}',
        '  ```\n<tool_call>{"tool": "read_file"}</tool_call>\n```  ',
    ],
)
def test_a_call_block_naming_an_offered_tool_is_a_written_call(answer: str) -> None:
    assert written_call(answer, TOOLS) in TOOLS


@pytest.mark.parametrize(
    "answer",
    [
        "The file says hello.",
        'It returned {"name": "read_file"} as expected.',  # words around the block: an answer
        '{"name": "rm_rf", "arguments": {}}',  # not an offered tool
        '{"value": 3}',
        "[" * 5000 + "]" * 5000,
        "",
    ],
)
def test_anything_else_is_not(answer: str) -> None:
    assert written_call(answer, TOOLS) is None


async def read(args: dict[str, Any]) -> str:
    return f"contents of {args['path']}"


BLOCK = '```json\n{"name": "read", "arguments": {"path": "a.txt"}}\n```'


async def test_a_written_call_is_answered_once_with_a_note_then_a_real_call_goes_on(h: Harness) -> None:
    h.tools.add("read", read)
    h.session.script = [text(BLOCK), calls(("read", {"path": "a.txt"})), text("It says hello.")]
    result = await h.run()
    assert result.stop_reason == "end_turn" and result.output == "It says hello."
    assert h.tools.executed == ["c1"]
    notes = [s[1][0] for s in h.session.sent if s[0] == "send_with_tools"]
    assert notes[1] == say.written_call_note("read")


async def test_a_second_written_call_is_not_the_output(h: Harness) -> None:
    h.tools.add("read", read)
    h.session.script = [calls(("read", {"path": "a.txt"})), text(BLOCK), text(BLOCK)]
    result = await h.run()
    assert result.stop_reason == "end_turn"
    assert BLOCK not in result.output
    assert result.output.startswith("The model answered with a read call written as text")
    assert "Calls made: read (ok)." in result.output


async def test_after_the_turn_limit_a_written_call_gets_one_request_for_prose(h: Harness) -> None:
    h.tools.add("read", read)
    h.session.script = [calls(("read", {"path": "a.txt"})), calls(("read", {"path": "b.txt"})), text(BLOCK)]
    h.session.script.append(text("a.txt says hello; I ran out of turns before b.txt."))
    result = await h.run(max_tool_turns=1, on_turn_limit="summarize")
    assert result.stop_reason == "max_turns"
    assert result.output == "a.txt says hello; I ran out of turns before b.txt."


async def test_after_the_turn_limit_a_second_written_call_becomes_what_was_done(h: Harness) -> None:
    h.tools.add("read", read)
    h.session.script = [calls(("read", {"path": "a.txt"})), calls(("read", {"path": "b.txt"})), text(BLOCK)]
    h.session.script.append(text(BLOCK))
    result = await h.run(max_tool_turns=1, on_turn_limit="summarize")
    assert result.stop_reason == "max_turns"
    assert BLOCK not in result.output
    assert result.output.startswith("The run stopped at its tool turn limit (1) without an answer from the model.")
    assert "read (ok)" in result.output
