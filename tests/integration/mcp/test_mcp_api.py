"""The Python API's ``on_elicitation``: a real MCP server (npm ``server-everything``, stdio) asks, the callback answers.

The agent is the public ``quorum.Agent`` with a ``scripted:`` model calling the server's
``trigger-elicitation-request`` tool; the tests assert what the server received (it echoes the
answer in the tool result the model gets) and the ``mcp_elicitation`` event.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from quorum import Agent, ElicitationAnswer, ElicitationRequest, RunResult

EVERYTHING = Path(__file__).resolve().parents[2] / ".npm" / "node_modules" / ".bin" / "mcp-server-everything"

pytestmark = pytest.mark.skipif(
    not EVERYTHING.exists(), reason=f"server-everything is not installed under {EVERYTHING.parent} (.ci/run does it)"
)


async def _run(tmp_path: Path, on_elicitation: Any) -> tuple[RunResult, str]:
    script = tmp_path / "script.json"
    call = {"name": "mcp__ev__trigger-elicitation-request", "arguments": {}}
    script.write_text(json.dumps({"turns": [{"tool_calls": [call]}, {"text": "done"}]}))
    servers = {"ev": {"command": str(EVERYTHING), "args": ["stdio"], "risk": "low"}}
    async with Agent(f"scripted:{script}", mcp_servers=servers, on_elicitation=on_elicitation) as agent:
        result = await agent.run("ask me")
    assert result.stop_reason == "end_turn", result.detail
    (outcome,) = [e for e in result.events if e.type == "tool_result"]
    return result, outcome.output


async def test_a_sync_callback_accepts_and_left_out_fields_take_the_schema_defaults(tmp_path: Path) -> None:
    asked: list[ElicitationRequest] = []

    def answer(request: ElicitationRequest) -> dict[str, Any]:
        asked.append(request)
        return {"name": "Ada Lovelace", "check": True, "email": "ada@example.org", "integer": 7}

    result, output = await _run(tmp_path, answer)
    (request,) = asked
    assert request.server == "ev" and request.message == "Please provide inputs for the following fields:"
    assert request.requested_schema["properties"]["firstLine"]["default"] == "It was a dark and stormy night."
    assert "User provided the requested information" in output
    raw = json.loads(output.split("Raw result:", 1)[1])  # what the server received
    assert raw["action"] == "accept"
    content = raw["content"]
    assert (content["name"], content["check"], content["integer"]) == ("Ada Lovelace", True, 7)  # given
    assert (content["firstLine"], content["number"]) == ("It was a dark and stormy night.", 3.14)  # defaults
    assert content["untitledMultipleSelectEnum"] == ["Guitar"] and "homepage" not in content  # no default
    (event,) = [e for e in result.events if e.type == "mcp_elicitation"]
    assert (event.action, event.decided_by) == ("accept", "callback")
    assert "firstLine" in event.fields and "Ada" not in event.model_dump_json()  # names, never values


@pytest.mark.parametrize("action", ["decline", "cancel"])
async def test_an_async_callback_declines_or_cancels(tmp_path: Path, action: str) -> None:
    async def answer(request: ElicitationRequest) -> ElicitationAnswer:
        return ElicitationAnswer(action=action)  # type: ignore[arg-type]

    result, output = await _run(tmp_path, answer)
    assert f"User {'declined' if action == 'decline' else 'cancelled'}" in output
    (event,) = [e for e in result.events if e.type == "mcp_elicitation"]
    assert (event.action, event.decided_by, event.fields) == (action, "callback", [])


async def test_a_callback_returning_none_declines(tmp_path: Path) -> None:
    _, output = await _run(tmp_path, lambda request: None)
    assert "User declined" in output


def test_on_elicitation_must_be_callable() -> None:
    with pytest.raises(TypeError, match="on_elicitation must be callable"):
        Agent("test", on_elicitation="yes")  # type: ignore[arg-type]
