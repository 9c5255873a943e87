"""Prompt commands and AGENTS.md in ``quorum chat`` (messages piped in, one per line)."""

from __future__ import annotations

import json
import sqlite3

from tests.e2e.conftest import Cli


def _tasks(cli: Cli) -> list[str]:
    db = sqlite3.connect(cli.env["QUORUM_DB"])
    try:
        return [row[0] for row in db.execute("SELECT task FROM runs ORDER BY started_at, rowid")]
    finally:
        db.close()


def test_help_lists_the_prompt_commands_and_one_runs_with_its_arguments(cli: Cli) -> None:
    cli.write("chat.json", json.dumps({"conversation": "continue", "turns": [{"text": "fixed it"}]}))
    cli.write(
        ".quorum/commands/fix-todo.md",
        "---\ndescription: Fix the TODOs of a file\n---\nFix every TODO in $ARGUMENTS.\n",
    )
    cli.write(".quorum/commands/help.md", "shadowing /help")
    cli.write("AGENTS.md", "ROOT-MARKER")

    result = cli("chat", "--model", "scripted:chat.json", input="/help\n/fix-todo app.py\n")

    assert result.code == 0, result.stderr
    assert "/fix-todo [ARGS]  Fix the TODOs of a file" in result.stdout
    assert "/help is a built-in command" in result.stdout + result.stderr
    assert "fixed it" in result.stdout
    assert _tasks(cli) == ["Fix every TODO in app.py."]
    assert "· instructions: AGENTS.md" in result.stderr


def test_no_project_instructions_flag_in_chat(cli: Cli) -> None:
    cli.write("chat.json", json.dumps({"conversation": "continue", "turns": [{"text": "ok"}]}))
    cli.write("AGENTS.md", "ROOT-MARKER")
    result = cli("chat", "--no-project-instructions", "--model", "scripted:chat.json", input="hi\n")
    assert result.code == 0, result.stderr
    assert "instructions:" not in result.stderr
