"""Hooks end to end: ``quorum run`` as a subprocess, real hook scripts run by ``sh``, a scripted OpenAI wire server.

Each test configures ``[[hooks.EVENT]]`` tables in the workspace's quorum.toml (or the user's),
lets the scripted model make calls, and checks the effect: a file written or not, what the next
request to the model carried, a marker a hook leaves, a process no longer running.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli, Result
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn

SECRET = "sk-hooks-e2e-secret-0123456789"
WRITE = Call("w1", "write_file", {"path": "out.txt", "content": "written\n"})


@pytest.fixture
def server() -> Iterator[ScriptedHttpServer]:
    started = openai_server()
    try:
        yield started
    finally:
        started.stop()


def _configure(cli: Cli, server: ScriptedHttpServer, hooks: str, extra: str = "") -> None:
    provider = f'[providers.main]\ntype = "openai"\nbase_url = "{server.url}/v1"\napi_key = "{SECRET}"\n'
    cli.write("quorum.toml", 'model = "main:m"\n\n' + provider + "\n" + extra + "\n" + hooks)


def _hook(event: str, command: str, *, matcher: str | None = None, timeout: float | None = None) -> str:
    lines = [f"[[hooks.{event}]]", f"command = {json.dumps(command)}"]
    if matcher is not None:
        lines.append(f"matcher = {json.dumps(matcher)}")
    if timeout is not None:
        lines.append(f"timeout = {timeout}")
    return "\n".join(lines) + "\n"


def _script(cli: Cli, name: str, body: str) -> str:
    """A hook script in the workspace; returns the command running it."""
    cli.write(name, body)
    return f"sh ./{name}"


def _run(cli: Cli, task: str = "write the file") -> Result:
    return cli("run", "--json", task)


def _review(result: Result, call_id: str = "w1") -> dict[str, Any]:
    [review] = [e for e in result.events() if e["type"] == "review" and e["call_id"] == call_id]
    return review


def _tool_message(body: dict[str, Any], call_id: str = "w1") -> str:
    [message] = [m for m in body["messages"] if m.get("role") == "tool" and m.get("tool_call_id") == call_id]
    content = message["content"]
    return content if isinstance(content, str) else " ".join(part.get("text", "") for part in content)


def _decision(permission: str, reason: str) -> str:
    answer = {
        "hookSpecificOutput": {
            "hookEventName": "PreToolUse",
            "permissionDecision": permission,
            "permissionDecisionReason": reason,
        }
    }
    return f"cat > /dev/null; echo '{json.dumps(answer)}'"


def test_a_deny_answer_keeps_the_file_unwritten_and_its_reason_reaches_the_model(
    cli: Cli, server: ScriptedHttpServer
) -> None:
    command = _decision("deny", "writes wait for the release")
    _configure(cli, server, _hook("pre_tool_use", command, matcher="^write_file$"))
    server.enqueue(Turn(calls=(WRITE,)), Turn(text="I did not write it."))

    result = _run(cli)

    assert result.code == 0, result.stderr
    assert not (cli.workspace / "out.txt").exists()
    review = _review(result)
    assert (review["approved"], review["decided_by"], review["hook"]) == (False, "hook", command)
    assert "writes wait for the release" in _tool_message(server.bodies()[1])
    assert result.events()[-1]["stop_reason"] == "end_turn"


def test_exit_2_denies_with_its_stderr(cli: Cli, server: ScriptedHttpServer) -> None:
    command = _script(cli, "guard.sh", "cat > /dev/null\necho 'no .env files, ever' >&2\nexit 2\n")
    _configure(cli, server, _hook("pre_tool_use", command))
    server.enqueue(Turn(calls=(WRITE,)), Turn(text="ok"))

    result = _run(cli)

    assert not (cli.workspace / "out.txt").exists()
    assert _review(result)["decided_by"] == "hook"
    assert "no .env files, ever" in _tool_message(server.bodies()[1])


@pytest.mark.parametrize(
    ("body", "said"),
    [
        ("cat > /dev/null\necho 'something broke' >&2\nexit 1\n", "exit status 1"),
        ("cat > /dev/null\necho 'sure, go ahead'\n", "not JSON"),
        ('cat > /dev/null\necho \'{"decision": "approve"}\'\n', "no hookSpecificOutput"),
        ("cat > /dev/null\nsleep 60 &\necho $! > sleeper.pid\nwait\n", "timed out after 1 s"),
    ],
    ids=["crash", "garbage", "other-json", "timeout"],
)
def test_a_failing_hook_denies_the_call_and_the_run_goes_on(
    cli: Cli, server: ScriptedHttpServer, body: str, said: str
) -> None:
    command = _script(cli, "hook.sh", body)
    _configure(cli, server, _hook("pre_tool_use", command, timeout=1))
    server.enqueue(Turn(calls=(WRITE,)), Turn(text="going on"))

    result = _run(cli)

    assert result.code == 0, result.stderr
    assert not (cli.workspace / "out.txt").exists()
    review = _review(result)
    assert (review["approved"], review["decided_by"]) == (False, "hook")
    assert said in review["reason"] and "counts as a denial" in review["reason"]
    assert said in _tool_message(server.bodies()[1])
    assert result.events()[-1]["output"] == "going on"
    if "timed out" in said:  # the timed-out hook's process group was killed: its child does not run on
        assert not _running(int((cli.workspace / "sleeper.pid").read_text()))


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (a zombie waiting to be reaped by init does not)."""
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return False
    return state != "Z"


def test_allow_approves_a_high_risk_write_with_no_person_and_no_reviewers(cli: Cli, server: ScriptedHttpServer) -> None:
    command = _decision("allow", "formatting-only change")
    _configure(cli, server, _hook("pre_tool_use", command, matcher="write_file"))
    server.enqueue(Turn(calls=(WRITE,)), Turn(text="written"))

    result = _run(cli)

    assert (cli.workspace / "out.txt").read_text() == "written\n"
    review = _review(result)
    assert (review["approved"], review["decided_by"], review["reason"]) == (True, "hook", "formatting-only change")


def test_without_the_hook_the_same_write_is_not_approved(cli: Cli, server: ScriptedHttpServer) -> None:
    _configure(cli, server, "")
    server.enqueue(Turn(calls=(WRITE,)), Turn(text="not written"))

    result = _run(cli)

    assert not (cli.workspace / "out.txt").exists()
    assert _review(result)["approved"] is False


def test_a_policy_deny_rule_beats_a_hook_allow(cli: Cli, server: ScriptedHttpServer) -> None:
    command = "touch hook-ran; " + _decision("allow", "fine by me")
    rule = '[[review.rules]]\ntool = "write_file"\ndecision = "deny"\nreason = "no writes"\n'
    _configure(cli, server, _hook("pre_tool_use", command), extra=rule)
    server.enqueue(Turn(calls=(WRITE,)), Turn(text="ok"))

    result = _run(cli)

    assert not (cli.workspace / "out.txt").exists()
    assert _review(result)["decided_by"] == "policy"
    assert not (cli.workspace / "hook-ran").exists()  # the deny rules come first: the hook is not asked


def test_the_payload_has_claude_codes_fields_and_no_secret(cli: Cli, server: ScriptedHttpServer) -> None:
    command = "cat > payload.json"
    _configure(cli, server, _hook("pre_tool_use", command))
    leaky = Call("w1", "write_file", {"path": "out.txt", "content": f"key={SECRET}\n"})
    read = Call("r1", "read_file", {"path": "quorum.toml"})
    server.enqueue(Turn(calls=(read,)), Turn(calls=(leaky,)), Turn(text="done"))

    result = _run(cli)

    payload = json.loads((cli.workspace / "payload.json").read_text())
    run_id = result.events()[0]["run_id"]
    assert payload["hook_event_name"] == "PreToolUse"
    assert (payload["session_id"], payload["run_id"]) == (run_id, run_id)
    assert payload["cwd"] == str(cli.workspace.resolve())
    assert payload["transcript_path"] is None
    assert (payload["tool_name"], payload["tool_use_id"]) == ("write_file", "w1")
    assert payload["tool_input"]["path"] == "out.txt"
    assert SECRET not in json.dumps(payload) and "[REDACTED:" in payload["tool_input"]["content"]
    # no opinion: the low-risk read ran, the high-risk write went to the usual review (no person: rejected)
    assert [e["decided_by"] for e in result.events() if e["type"] == "review"] == ["auto"]
    assert not (cli.workspace / "out.txt").exists()


def test_post_tool_use_context_is_in_the_result_the_model_gets(cli: Cli, server: ScriptedHttpServer) -> None:
    answer = {"hookSpecificOutput": {"hookEventName": "PostToolUse", "additionalContext": "formatted with black"}}
    command = f"cat > post.json; echo '{json.dumps(answer)}'"
    hooks = _hook("pre_tool_use", _decision("allow", "ok")) + _hook("post_tool_use", command, matcher="write")
    _configure(cli, server, hooks)
    server.enqueue(Turn(calls=(WRITE,)), Turn(text="done"))

    result = _run(cli)

    assert result.code == 0, result.stderr
    assert "formatted with black" in _tool_message(server.bodies()[1])
    post = json.loads((cli.workspace / "post.json").read_text())
    assert post["hook_event_name"] == "PostToolUse" and post["tool_response"]["is_error"] is False


def test_a_stop_hook_blocking_once_gives_one_more_turn(cli: Cli, server: ScriptedHttpServer) -> None:
    body = (
        "payload=$(cat)\n"
        'echo "$payload" >> stops.jsonl\n'
        'case "$payload" in\n'
        '  *\'"stop_hook_active": false\'*) echo \'{"decision": "block", "reason": "run the tests first"}\' ;;\n'
        "esac\n"
    )
    _configure(cli, server, _hook("stop", _script(cli, "stop.sh", body)))
    server.enqueue(Turn(text="finished"), Turn(text="tests pass, finished"))

    result = _run(cli, "do it")

    assert result.code == 0, result.stderr
    assert result.events()[-1]["output"] == "tests pass, finished"
    last = server.bodies()[1]["messages"][-1]
    assert last["role"] == "user" and "run the tests first" in str(last["content"])
    stops = [json.loads(line) for line in (cli.workspace / "stops.jsonl").read_text().splitlines()]
    assert [s["stop_hook_active"] for s in stops] == [False, True]
    assert server.remaining == 0


def test_user_prompt_submit_adds_context_or_blocks(cli: Cli, server: ScriptedHttpServer) -> None:
    _configure(cli, server, _hook("user_prompt_submit", "cat > /dev/null; echo 'the branch is main'"))
    server.enqueue(Turn(text="noted"))

    added = _run(cli, "what branch?")

    assert added.code == 0, added.stderr
    assert "the branch is main" in str(server.bodies()[0]["messages"][-1]["content"])

    blocker = _script(cli, "block.sh", "cat > /dev/null\necho 'no prompts on Fridays' >&2\nexit 2\n")
    _configure(cli, server, _hook("user_prompt_submit", blocker))
    blocked = _run(cli, "what branch?")

    finished = blocked.events()[-1]
    assert finished["stop_reason"] == "rejected" and "no prompts on Fridays" in finished["detail"]
    assert finished["stop"]["hook"] == blocker and blocked.code == 3
    assert len(server.requests) == 1  # the blocked message never reached the model


def test_session_start_runs_with_its_payload(cli: Cli, server: ScriptedHttpServer) -> None:
    _configure(cli, server, _hook("session_start", "cat > start.json"))
    server.enqueue(Turn(text="hi"))

    result = _run(cli, "hello")

    assert result.code == 0, result.stderr
    start = json.loads((cli.workspace / "start.json").read_text())
    assert (start["hook_event_name"], start["source"]) == ("SessionStart", "startup")


def _untrusted(cli: Cli, server: ScriptedHttpServer, user_hooks: str = "") -> tuple[Cli, Path]:
    """The CLI without the suite's blanket trust; the provider (and ``user_hooks``) in the user's config."""
    cli = Cli(cli.workspace, {k: v for k, v in cli.env.items() if k != "QUORUM_TRUST_WORKSPACE"})
    user_config = Path(cli.env["XDG_CONFIG_HOME"]) / "quorum" / "quorum.toml"
    user_config.parent.mkdir(parents=True)
    provider = f'[providers.main]\ntype = "openai"\nbase_url = "{server.url}/v1"\napi_key = "{SECRET}"\n'
    user_config.write_text('model = "main:m"\n\n' + provider + "\n" + user_hooks)
    return cli, user_config


def test_an_untrusted_workspaces_hooks_do_not_run_and_are_listed_as_such(cli: Cli, server: ScriptedHttpServer) -> None:
    cli, _ = _untrusted(cli, server)
    cli.write("quorum.toml", _hook("pre_tool_use", "touch PWNED") + _hook("session_start", "touch PWNED"))
    server.enqueue(Turn(calls=(Call("r1", "read_file", {"path": "quorum.toml"}),)), Turn(text="read"))

    result = _run(cli, "read the config")

    assert result.code == 0, result.stderr
    assert not (cli.workspace / "PWNED").exists()
    assert "hooks" in result.stderr and "untrusted workspace" in result.stderr
    listed = [json.loads(line) for line in cli("hooks", "list", "--json").stdout.splitlines()]
    assert [(row["event"], row["command"], row["applies"]) for row in listed] == [
        ("pre_tool_use", "touch PWNED", False),
        ("session_start", "touch PWNED", False),
    ]


def test_user_level_hooks_apply_in_an_untrusted_workspace(cli: Cli, server: ScriptedHttpServer) -> None:
    guard = _hook("pre_tool_use", _decision("deny", "the user's own guard"), matcher="read_file")
    cli, user_config = _untrusted(cli, server, guard)
    cli.write("quorum.toml", "[agent]\nmax_tool_turns = 5\n")  # an untrusted workspace file, without hooks
    server.enqueue(Turn(calls=(Call("r1", "read_file", {"path": "quorum.toml"}),)), Turn(text="denied"))

    result = _run(cli, "read the config")

    review = _review(result, "r1")  # a low-risk call: the hook is asked all the same
    assert (review["approved"], review["decided_by"]) == (False, "hook")
    listed = cli("hooks", "list")
    assert str(user_config) in listed.stdout and "pre_tool_use" in listed.stdout


def test_doctor_runs_no_hook(cli: Cli, server: ScriptedHttpServer) -> None:
    events = ("pre_tool_use", "post_tool_use", "user_prompt_submit", "stop", "session_start", "pre_compact")
    _configure(cli, server, "".join(_hook(event, f"touch ran-{event}") for event in events))

    cli("doctor", timeout=120)

    assert list(cli.workspace.glob("ran-*")) == []


def test_what_a_hook_prints_never_reaches_the_terminal_raw(cli: Cli, server: ScriptedHttpServer) -> None:
    command = _script(cli, "loud.sh", "cat > /dev/null\nprintf 'denied\\033[2J\\033]52;c;cHduZWQ=\\007' >&2\nexit 2\n")
    _configure(cli, server, _hook("pre_tool_use", command))
    server.enqueue(Turn(calls=(WRITE,)), Turn(text="ok"))

    result = cli("run", "write the file")

    assert "denied" in result.stderr and "by the hook" in result.stderr
    assert "\x1b" not in result.stderr and "\x07" not in result.stderr
    assert "\\x1b[2J" in result.stderr  # shown escaped


async def test_the_acp_agent_runs_the_hooks_too(cli: Cli) -> None:
    from tests.e2e.acp_client import RecordingClient, agent, prompt, within, write_script

    command = _decision("deny", "not from the editor either")
    cli.write("quorum.toml", _hook("pre_tool_use", command, matcher="write_file"))
    write = {"tool_calls": [{"name": "write_file", "arguments": {"path": "out.txt", "content": "x"}, "id": "w1"}]}
    model = write_script(cli, [write, {"text": "not written"}])
    client = RecordingClient(answers=["allow_once"])  # the hook decides: the editor is never asked
    async with agent(cli, client, "--model", model) as conn:
        session = await within(conn.new_session(cwd=str(cli.workspace), mcp_servers=[]))
        assert await prompt(conn, session.session_id, "write it") == "end_turn"
    assert not (cli.workspace / "out.txt").exists()
    assert client.permissions == []
    updates = [u for u in client.of("tool_call_update") if u.tool_call_id == "w1" and u.status == "failed"]
    assert updates and "not from the editor either" in updates[-1].content[-1].content.text


def test_a_continued_conversation_keeps_its_first_runs_id_as_session_id(cli: Cli, server: ScriptedHttpServer) -> None:
    _configure(cli, server, _hook("user_prompt_submit", "cat >> prompts.jsonl; echo >> prompts.jsonl"))
    server.enqueue(Turn(text="one"), Turn(text="two"), Turn(text="three"))

    first = _run(cli, "first")
    second = cli("run", "--json", "--continue", "second")
    third = cli("run", "--json", "--continue", "third")

    ids = [result.events()[0]["run_id"] for result in (first, second, third)]
    prompts = [json.loads(line) for line in (cli.workspace / "prompts.jsonl").read_text().splitlines()]
    assert [(p["prompt"], p["run_id"], p["session_id"]) for p in prompts] == [
        ("first", ids[0], ids[0]),
        ("second", ids[1], ids[0]),
        ("third", ids[2], ids[0]),
    ]
