"""The CLI with built-in tools and real MCP servers: ``quorum run --json``, ``tools list``, ``mcp``."""

from __future__ import annotations

import json
import shutil
import sys
from pathlib import Path

from tests.e2e.conftest import Cli

PROBE = Path(__file__).resolve().parents[1] / "support" / "mcp_servers" / "probe_server.py"


def configure(cli: Cli, *, broken: bool = False) -> None:
    time_server = shutil.which("mcp-server-time")
    assert time_server
    config = f"""
[tools]
risk = {{ "mcp__probe__fast" = "low" }}

[mcp.servers.probe]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(PROBE))}]

[mcp.servers.time]
command = {json.dumps(time_server)}
args = ["--local-timezone", "UTC"]
"""
    if broken:
        config += f"""
[mcp.servers.broken]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(PROBE))}, "--fail"]
"""
    cli.write("quorum.toml", config)


SCRIPT = """
[[turns]]
text = "Reading and asking the servers."
tool_calls = [
  { name = "read_file", arguments = { path = "notes.txt" } },
  { name = "mcp__probe__fast", arguments = { text = "ping" } },
  { name = "mcp__time__get_current_time", arguments = { timezone = "UTC" } },
  { name = "run_command", arguments = { command = "ls" } },
  { name = "read_file", arguments = { path = "../outside.txt" } },
]

[[turns]]
text = "Writing."
tool_calls = [
  { name = "edit_file", arguments = { path = "notes.txt", old_text = "hello", new_text = "goodbye" } },
  { name = "run_command", arguments = { command = "echo done>out.txt" } },
  { name = "mcp__probe__boom", arguments = {} },
]

[[turns]]
text = "All done."
"""


def test_run_uses_builtin_and_mcp_tools(cli: Cli) -> None:
    configure(cli, broken=True)
    cli.write("notes.txt", "hello\n")
    cli.write("script.toml", SCRIPT)
    result = cli("run", "--json", "--yes", "--no-log", "--model", "scripted:script.toml", "go", timeout=120)
    assert result.code == 0, result.stderr
    events = result.events()
    calls = {
        e["name"] + ":" + json.dumps(e["arguments"], sort_keys=True): e for e in events if e["type"] == "tool_call"
    }
    results = {e["call_id"]: e for e in events if e["type"] == "tool_result"}

    def result_of(name: str, **arguments: object) -> dict:  # type: ignore[type-arg]
        call = calls[name + ":" + json.dumps(arguments, sort_keys=True)]
        return {**results[call["id"]], "risk": call["risk"]}

    assert result_of("read_file", path="notes.txt")["output"] == "hello\n"
    fast = result_of("mcp__probe__fast", text="ping")
    assert (fast["output"], fast["risk"]) == ("echo: ping", "low")  # [tools] risk override
    now = result_of("mcp__time__get_current_time", timezone="UTC")
    assert '"timezone": "UTC"' in now["output"] and now["risk"] == "low"
    ls = result_of("run_command", command="ls")
    assert ls["risk"] == "low" and "notes.txt" in ls["output"]
    escape = result_of("read_file", path="../outside.txt")
    assert escape["is_error"] and "climbs out of the workspace" in escape["output"]

    assert result_of("edit_file", path="notes.txt", old_text="hello", new_text="goodbye")["risk"] == "high"
    echo = result_of("run_command", command="echo done>out.txt")
    assert echo["risk"] == "high" and not echo["is_error"]
    assert result_of("mcp__probe__boom")["is_error"]
    assert (cli.workspace / "notes.txt").read_text() == "goodbye\n"
    assert (cli.workspace / "out.txt").read_text() == "done\n"
    assert events[-1]["type"] == "run_finished" and events[-1]["output"] == "All done."
    # The server that never started is an mcp_server event (issue 15), not a stderr warning.
    (broken,) = [e for e in events if e["type"] == "mcp_server" and e["name"] == "broken"]
    assert broken["state"] == "failed" and "fatal: probe configured to fail" in broken["error"]


def test_tools_list_shows_sources_and_risks(cli: Cli) -> None:
    configure(cli)
    result = cli("tools", "list", "--json", timeout=120)
    assert result.code == 0, result.stderr
    rows = {r["name"]: r for r in result.events()}
    assert (rows["read_file"]["risk"], rows["read_file"]["source"]) == ("low", "builtin")
    assert (rows["run_command"]["risk"], rows["run_command"]["source"]) == ("high", "builtin")
    assert (rows["mcp__probe__lookup"]["risk"], rows["mcp__probe__lookup"]["source"]) == ("low", "mcp:probe")
    assert rows["mcp__probe__wipe"]["risk"] == "high"
    assert rows["mcp__probe__fast"]["risk"] == "low"
    assert rows["mcp__time__convert_time"]["source"] == "mcp:time"


def test_mcp_list_and_check(cli: Cli) -> None:
    configure(cli, broken=True)
    listed = cli("mcp", "list", "--json", timeout=120)
    assert listed.code == 0, listed.stderr
    states = {r["name"]: (r["state"], r["tools"]) for r in listed.events()}
    assert states["probe"][0] == "running" and states["probe"][1] >= 14  # the probe grows with its tests
    assert {k: v for k, v in states.items() if k != "probe"} == {"time": ("running", 2), "broken": ("failed", None)}

    checked = cli("mcp", "check", "broken", timeout=120)
    assert checked.code == 1
    assert "FAIL  broken" in checked.stdout and "fatal: probe configured to fail" in checked.stdout
    assert checked.stderr.strip() == "quorum: error: MCP server check failed: broken"

    ok = cli("mcp", "check", "time", timeout=120)
    assert ok.code == 0, ok.stderr
    assert "ok    time: started in" in ok.stdout and ", 2 tools\n" in ok.stdout
    assert "      low   get_current_time  not pinned yet\n" in ok.stdout  # one line per tool: risk, pin
    assert "{" not in ok.stdout  # names, not Python dicts

    unknown = cli("mcp", "check", "nope", timeout=60)
    assert unknown.code == 2
    assert "no MCP server named 'nope'" in unknown.stderr


EDIT_BEFORE_READ = """
[[turns]]
tool_calls = [{ name = "edit_file", arguments = { path = "notes.txt", old_text = "hello", new_text = "goodbye" } }]

[[turns]]
tool_calls = [{ name = "read_file", arguments = { path = "notes.txt" } }]

[[turns]]
tool_calls = [{ name = "edit_file", arguments = { path = "notes.txt", old_text = "hello", new_text = "goodbye" } }]

[[turns]]
text = "Edited."
"""


def test_an_edit_before_a_read_is_refused_with_the_next_step_then_made_after_it(cli: Cli) -> None:
    cli.write("notes.txt", "hello\n")
    cli.write("script.toml", EDIT_BEFORE_READ)
    result = cli("run", "--json", "--yes", "--no-log", "--model", "scripted:script.toml", "edit the notes", timeout=120)
    assert result.code == 0, result.stderr
    outputs = [e for e in result.events() if e["type"] == "tool_result"]
    assert [e["is_error"] for e in outputs] == [True, False, False]
    assert "'notes.txt' exists and this run has not read it. Its content (now read):\nhello" in outputs[0]["output"]
    assert "1 > goodbye" in outputs[2]["output"]
    assert (cli.workspace / "notes.txt").read_text() == "goodbye\n"


EDIT_AFTER_THE_REFUSAL = """
[[turns]]
tool_calls = [
    { name = "edit_file", arguments = { path = "notes.txt", old_text = "helo", new_text = "goodbye" } },
    { name = "write_file", arguments = { path = "notes.txt", content = "overwritten" } },
]

[[turns]]
tool_calls = [{ name = "edit_file", arguments = { path = "notes.txt", old_text = "hello", new_text = "goodbye" } }]

[[turns]]
text = "Edited."
"""


def test_an_unread_file_refused_with_its_content_can_be_edited_in_the_next_response(cli: Cli) -> None:
    # The refusal shows the file, so the model's next step is the edit, not a read it may repeat; a
    # second call of the refused response had not seen it and is refused too.
    cli.write("notes.txt", "hello\n")
    cli.write("script.toml", EDIT_AFTER_THE_REFUSAL)
    result = cli("run", "--json", "--yes", "--no-log", "--model", "scripted:script.toml", "edit the notes", timeout=120)
    assert result.code == 0, result.stderr
    outputs = [e for e in result.events() if e["type"] == "tool_result"]
    assert [e["is_error"] for e in outputs] == [True, True, False]
    assert "Its content (now read):\nhello\n" in outputs[0]["output"]
    assert "has not read it" in outputs[1]["output"]
    assert (cli.workspace / "notes.txt").read_text() == "goodbye\n"
