"""The Python API runs the configured hooks too: ``Agent`` goes through the same composition as the CLI."""

from __future__ import annotations

import json
from pathlib import Path

from quorum import Agent, tool

ALLOW = {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": "allow"}}


@tool(risk="high")
def save(path: str, text: str) -> str:
    """Save a note (a write, so it is reviewed)."""
    Path(path).write_text(text)
    return "saved"


async def test_a_pre_tool_use_hook_approves_a_call_of_an_agent_with_no_human(tmp_path: Path) -> None:
    note = tmp_path / "note.txt"
    turns = [{"tool_calls": [{"name": "save", "arguments": {"path": str(note), "text": "hi"}}]}, {"text": "saved"}]
    (tmp_path / "script.json").write_text(json.dumps({"turns": turns}))
    config = tmp_path / "agent.toml"
    hook = f"cat > payload.json; echo '{json.dumps(ALLOW)}'"
    config.write_text(
        f'model = "scripted:{tmp_path / "script.json"}"\n\n[[hooks.pre_tool_use]]\ncommand = {json.dumps(hook)}\n'
    )

    async with Agent(config=config, tools=[save], workspace=tmp_path) as agent:
        result = await agent.run("save a note")

    assert note.read_text() == "hi"
    [review] = [e for e in result.events if e.type == "review"]
    assert (review.decided_by, review.hook) == ("hook", hook)
    payload = json.loads((tmp_path / "payload.json").read_text())
    assert (payload["tool_name"], payload["run_id"]) == ("save", result.run_id)
