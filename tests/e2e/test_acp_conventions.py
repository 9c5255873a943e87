"""``quorum acp`` announces the workspace's prompt commands and expands them; AGENTS.md reaches its runs."""

from __future__ import annotations

import json

from tests.e2e.acp_client import RecordingClient, agent, prompt, within, write_script
from tests.e2e.conftest import Cli


async def test_prompt_commands_are_announced_and_a_prompt_naming_one_runs_its_body(cli: Cli) -> None:
    cli.write(
        ".quorum/commands/fix-todo.md",
        "---\ndescription: Fix the TODOs of a file\n---\nFix every TODO in $ARGUMENTS.\n",
    )
    cli.write(".quorum/commands/usage.md", "shadows a built-in: refused")
    model = write_script(cli, [{"text": "fixed"}])
    client = RecordingClient()
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        [announced] = await client.wait_for("available_commands_update")
        commands = {c.name: c for c in announced.available_commands}
        assert set(commands) == {"tools", "review", "usage", "model", "plan", "fix-todo"}
        assert commands["fix-todo"].description == "Fix the TODOs of a file"
        assert commands["usage"].description != "shadows a built-in: refused"
        assert await prompt(conn, session.session_id, "/fix-todo app.py") == "end_turn"
    assert client.text() == "fixed"
    (run,) = [json.loads(line) for line in cli("logs", "list", "--json").stdout.splitlines()]
    assert run["task"] == "Fix every TODO in app.py."
