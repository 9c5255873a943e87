"""``Agent.undo``: the library puts back what a run changed, plans without changing, and raises on conflicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quorum import Agent, Decision, Review, UndoConflict, UndoResult


def scripted(tmp_path: Path) -> str:
    turns = [
        {"tool_calls": [{"name": "read_file", "arguments": {"path": "notes.txt"}, "id": "r1"}]},
        {
            "tool_calls": [
                {"name": "write_file", "arguments": {"path": "notes.txt", "content": "rewritten\n"}, "id": "w1"},
                {"name": "write_file", "arguments": {"path": "new.txt", "content": "new\n"}, "id": "w2"},
            ]
        },
        {"text": "done"},
    ]
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}))
    return f"scripted:{path}"


def approve(_: object) -> Decision:
    return Decision(approved=True, reason="fine")


async def test_undo_plans_restores_and_refuses_a_file_changed_since(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    workspace.mkdir()
    (workspace / "notes.txt").write_text("original\n")
    async with Agent(scripted(tmp_path), builtins="all", workspace=workspace, review=Review(human=approve)) as agent:
        run = await agent.run("rewrite the notes")
        assert (workspace / "notes.txt").read_text() == "rewritten\n"
        assert [e.type for e in run.events].count("checkpoint") == 2

        planned = await agent.undo(run.run_id, dry_run=True)
        assert isinstance(planned, UndoResult) and not planned.applied and planned.undo_run_id is None
        assert {(s.path, s.action) for s in planned.plan.steps} == {("notes.txt", "restore"), ("new.txt", "remove")}
        assert (workspace / "new.txt").exists()

        (workspace / "new.txt").write_text("mine now\n")
        with pytest.raises(UndoConflict) as refused:
            await agent.undo(run.run_id)
        assert refused.value.files == ("new.txt",)
        assert (workspace / "notes.txt").read_text() == "rewritten\n"

        (workspace / "new.txt").write_text("new\n")
        done = await agent.undo(run.run_id, to_call="w2")
        assert done.applied and done.undo_run_id
        assert not (workspace / "new.txt").exists() and (workspace / "notes.txt").read_text() == "rewritten\n"

        await agent.undo(run.run_id, force=True)
        assert (workspace / "notes.txt").read_text() == "original\n"
