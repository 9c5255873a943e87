"""Review through the editor: ``session/request_permission``, its diff, "always" scoped as at the terminal.

Each test checks the effect on disk, not only what was said: an approved write is on disk, a
rejected one is not, and a "reject always" holds even once the session mode auto-approves.
"""

from __future__ import annotations

import asyncio
from typing import Any

from tests.e2e.acp_client import RecordingClient, agent, prompt, within, write_script
from tests.e2e.conftest import Cli


def read(path: str) -> dict[str, Any]:
    """A turn reading ``path``: an existing file is written only once the run has read it."""
    return {"tool_calls": [{"name": "read_file", "arguments": {"path": path}, "id": "r0"}]}


def write(path: str, content: str, call_id: str) -> dict[str, Any]:
    return {"tool_calls": [{"name": "write_file", "arguments": {"path": path, "content": content}, "id": call_id}]}


def result_of(client: RecordingClient, call_id: str) -> Any:
    updates = client.of("tool_call_update")
    return next(u for u in updates if u.tool_call_id == call_id and u.status in ("completed", "failed"))


async def test_an_approved_write_is_asked_with_its_diff_and_lands_on_disk(cli: Cli) -> None:
    target = cli.write("notes.txt", "before\n")
    model = write_script(cli, [read("notes.txt"), write("notes.txt", "after\n", "w1"), {"text": "written"}])
    client = RecordingClient(answers=["allow_once"])
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "update the notes") == "end_turn"
    [(tool_call, options)] = client.permissions
    assert tool_call.tool_call_id == "w1" and tool_call.kind == "edit"
    diff = tool_call.content[0]
    assert (diff.type, diff.path, diff.old_text, diff.new_text) == ("diff", str(target), "before\n", "after\n")
    assert [o.kind for o in options] == ["allow_once", "allow_always", "reject_once", "reject_always"]
    assert "write_file in ./" in options[1].name  # the terminal's scope, stated
    assert target.read_text() == "after\n"
    [start] = [u for u in client.of("tool_call") if u.tool_call_id == "w1"]
    assert start.content[0].type == "diff" and start.content[0].new_text == "after\n"
    done = result_of(client, "w1")
    assert done.status == "completed" and done.content[0].type == "diff"


async def test_a_rejected_write_leaves_the_file_and_the_model_gets_the_reason(cli: Cli) -> None:
    target = cli.write("notes.txt", "before\n")
    model = write_script(cli, [read("notes.txt"), write("notes.txt", "after\n", "w1"), {"text": "not written"}])
    client = RecordingClient(answers=["reject_once"])
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "update the notes") == "end_turn"
    assert target.read_text() == "before\n"
    failed = result_of(client, "w1")
    assert failed.status == "failed"
    said = failed.content[-1].content.text  # the tool result the model received
    assert "Rejected by review (human)" in said and "rejected by the user" in said
    runs = cli("logs", "list", "--json")
    run_id = next(line for line in runs.stdout.splitlines() if line.strip())
    assert session.session_id in run_id  # the session's first run carries the session's id


async def test_allow_always_covers_later_calls_in_its_scope_for_the_session(cli: Cli) -> None:
    model = write_script(
        cli,
        [
            write("d/a.txt", "a", "w1"),
            write("d/b.txt", "b", "w2"),  # same directory: not asked
            write("e/c.txt", "c", "w3"),  # another directory: asked
            {"text": "first done"},
            write("d/c.txt", "c", "w4"),  # the next prompt of the session: not asked
            {"text": "second done"},
        ],
    )
    (cli.workspace / "d").mkdir()
    (cli.workspace / "e").mkdir()
    client = RecordingClient(answers=["allow_always", "reject_once"])
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "write them") == "end_turn"
        assert await prompt(conn, session.session_id, "one more") == "end_turn"
    assert [p[0].tool_call_id for p in client.permissions] == ["w1", "w3"]
    assert (cli.workspace / "d" / "a.txt").read_text() == "a"
    assert (cli.workspace / "d" / "b.txt").read_text() == "b"
    assert (cli.workspace / "d" / "c.txt").read_text() == "c"
    assert not (cli.workspace / "e" / "c.txt").exists()


async def test_reject_always_holds_for_the_session_even_in_auto_approve_mode(cli: Cli) -> None:
    model = write_script(
        cli,
        [
            write("x/1.txt", "1", "w1"),
            write("x/2.txt", "2", "w2"),
            {"text": "first"},
            write("x/3.txt", "3", "w3"),
            {"text": "second"},
        ],
    )
    (cli.workspace / "x").mkdir()
    client = RecordingClient(answers=["reject_always"])
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "write") == "end_turn"
        await within(conn.set_session_mode(session_id=session.session_id, mode_id="auto_approve"))
        assert await prompt(conn, session.session_id, "write again") == "end_turn"
    assert [p[0].tool_call_id for p in client.permissions] == ["w1"]
    assert list((cli.workspace / "x").iterdir()) == []
    said = result_of(client, "w3").content[-1].content.text
    assert "always reject write_file in x/" in said


async def test_always_is_not_offered_where_the_terminal_refuses_it(cli: Cli) -> None:
    cli.write("quorum.toml", '[tools.sandbox]\nmode = "off"\n')
    compound = {"tool_calls": [{"name": "run_command", "arguments": {"command": "touch x && touch y"}, "id": "c1"}]}
    model = write_script(cli, [compound, {"text": "ok"}])
    client = RecordingClient(answers=["reject_once"])
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "run") == "end_turn"
    [(tool_call, options)] = client.permissions
    assert tool_call.kind == "execute"
    assert [o.kind for o in options] == ["allow_once", "reject_once"]  # a compound command has no honest scope
    assert not (cli.workspace / "x").exists()


async def test_session_modes_decide_without_asking(cli: Cli) -> None:
    model = write_script(cli, [write("a.txt", "a", "w1"), {"text": "one"}, write("b.txt", "b", "w2"), {"text": "two"}])
    client = RecordingClient()
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        modes = session.modes
        assert modes.current_mode_id == "interactive"
        assert [m.id for m in modes.available_modes] == ["interactive", "auto_approve", "auto_reject", "plan"]
        await within(conn.set_session_mode(session_id=session.session_id, mode_id="auto_reject"))
        assert await prompt(conn, session.session_id, "write a") == "end_turn"
        await within(conn.set_session_mode(session_id=session.session_id, mode_id="auto_approve"))
        assert await prompt(conn, session.session_id, "write b") == "end_turn"
    assert client.permissions == []
    assert not (cli.workspace / "a.txt").exists()
    assert (cli.workspace / "b.txt").read_text() == "b"


async def test_policy_rules_decide_before_the_editor_is_asked(cli: Cli) -> None:
    rules = (
        '[[review.rules]]\ndecision = "deny"\ntool = "write_file"\nmatch = { path = "locked/*" }\n'
        'reason = "locked files stay"\n\n'
        '[[review.rules]]\ndecision = "allow"\ntool = "write_file"\nmatch = { path = "open/*" }\n'
    )
    cli.write("quorum.toml", rules)
    (cli.workspace / "locked").mkdir()
    (cli.workspace / "open").mkdir()
    model = write_script(cli, [write("locked/a.txt", "a", "w1"), write("open/b.txt", "b", "w2"), {"text": "done"}])
    client = RecordingClient()
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        await within(conn.set_session_mode(session_id=session.session_id, mode_id="auto_approve"))
        assert await prompt(conn, session.session_id, "write") == "end_turn"
    assert client.permissions == []
    assert not (cli.workspace / "locked" / "a.txt").exists()  # deny wins even in auto-approve mode
    assert "locked files stay" in result_of(client, "w1").content[-1].content.text
    assert (cli.workspace / "open" / "b.txt").read_text() == "b"


async def test_the_panel_votes_first_and_an_escalated_rejection_shows_its_votes(cli: Cli) -> None:
    verdict = {"verdict": "reject", "reason": "not asked for"}
    reviewer = write_script(cli, [{"tool_calls": [{"name": "submit_verdict", "arguments": verdict}]}], "panel.json")
    cli.write("quorum.toml", f'[review]\nreviewers = ["{reviewer}"]\nescalate_on_reject = true\n')
    model = write_script(cli, [write("a.txt", "a", "w1"), {"text": "done"}])
    client = RecordingClient(answers=["allow_once"])
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "write") == "end_turn"
    [(tool_call, _)] = client.permissions
    shown = tool_call.content[-1].content.text
    assert "not asked for" in shown and "reject" in shown  # the panel's vote, shown with the question
    assert (cli.workspace / "a.txt").read_text() == "a"  # the person overrode the escalated rejection


async def test_cancel_while_the_editor_is_asked_writes_nothing_and_the_prompt_ends_cancelled(cli: Cli) -> None:
    model = write_script(cli, [write("a.txt", "a", "w1"), {"text": "after"}])
    client = RecordingClient(answers=["allow_once"], hold=asyncio.Event())
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        turn = asyncio.ensure_future(prompt(conn, session.session_id, "write"))
        await client.wait_for("permission")  # the question is on screen…
        await conn.cancel(session_id=session.session_id)  # …and the person cancels the turn instead
        assert await within(turn) == "cancelled"
        assert client.hold is not None
        client.hold.set()  # a late "allow" answers a question nobody waits for any more
    assert not (cli.workspace / "a.txt").exists()
    assert result_of(client, "w1").status == "failed"
