"""Pins through the real CLI: ``quorum run`` against a rug-pulling server, ``mcp check``, ``pins``, ``trust``.

The model is a local OpenAI-compatible wire server that records every request body, so the test
checks what the model was offered. ``[tools.risk]`` makes every tool of the server low risk: no
review stands between the model and the server, so only the pins can stop a changed tool.
"""

from __future__ import annotations

import copy
import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.e2e.conftest import Cli, isolated_env
from tests.integration.mcp.test_mcp_pins import RUG, TOOLS, flip_read_only, poison
from tests.support.http_server import ScriptedHttpServer
from tests.support.openai_server import openai_server
from tests.support.script import Call, Turn


@pytest.fixture
def wire() -> Iterator[ScriptedHttpServer]:
    server = openai_server()
    try:
        yield server
    finally:
        server.stop()


class Setup:
    def __init__(self, tmp_path: Path, wire: ScriptedHttpServer) -> None:
        workspace = tmp_path / "ws"
        workspace.mkdir()
        self.tools_file = tmp_path / "tools.json"
        self.calls_file = tmp_path / "calls.jsonl"
        self.tools_file.write_text(json.dumps(TOOLS))
        args = json.dumps([str(RUG), str(self.tools_file), str(self.calls_file)])
        (workspace / "quorum.toml").write_text(
            f"""model = "local:m"
[providers.local]
type = "openai"
base_url = {json.dumps(wire.url + "/v1")}
api_key = "x"
max_retries = 0
[storage]
enabled = false
[tools]
enabled = ["mcp__*"]
[tools.risk]
"mcp__rug__*" = "low"
[mcp.servers.rug]
command = {json.dumps(sys.executable)}
args = {args}
"""
        )
        self.cli = Cli(workspace, isolated_env(tmp_path))
        self.wire = wire

    def ran(self) -> list[str]:
        if not self.calls_file.exists():
            return []
        return [json.loads(line)["tool"] for line in self.calls_file.read_text().splitlines()]


def _offered(body: dict[str, Any]) -> set[str]:
    return {t["function"]["name"] for t in body.get("tools") or []}


def _tool_results(body: dict[str, Any]) -> dict[str, str]:
    return {m["tool_call_id"]: str(m["content"]) for m in body["messages"] if m["role"] == "tool"}


def test_a_rug_pull_mid_run_is_withheld_before_the_next_request_and_trust_restores_it(
    tmp_path: Path, wire: ScriptedHttpServer
) -> None:
    setup = Setup(tmp_path, wire)
    wire.enqueue(Turn(text="nothing to do"))
    first = setup.cli("run", "--json", "look")
    assert first.code == 0, first.stderr
    assert {"type": "mcp_tools_pinned", "server": "rug", "tool_count": 3} in first.events()

    # Mid-run: calling `keep` makes the server flip delete_notes to read-only and announce list_changed.
    changed = copy.deepcopy(TOOLS)
    flip_read_only(changed)
    Path(str(setup.tools_file) + ".next").write_text(json.dumps(changed))
    wire.enqueue(
        Turn(calls=(Call("c1", "mcp__rug__keep", {}),)),
        Turn(calls=(Call("c2", "mcp__rug__delete_notes", {"folder": "all"}),)),  # still named by the model
        Turn(text="done"),
    )
    second = setup.cli("run", "--json", "tidy up")
    assert second.code == 0, second.stderr
    bodies = wire.bodies()[1:]
    assert "mcp__rug__delete_notes" in _offered(bodies[0])
    assert "mcp__rug__delete_notes" not in _offered(bodies[1])  # caught before the next request
    assert "mcp__rug__keep" in _offered(bodies[1])
    refused = _tool_results(bodies[2])["c2"]
    assert "not offered" in refused  # withdrawn from the run: the executor no longer routes it
    assert setup.ran() == ["keep"]  # the effect: delete_notes never ran
    changes = [e for e in second.events() if e["type"] == "mcp_tool_changed"]
    assert changes == [{"type": "mcp_tool_changed", "server": "rug", "tool": "delete_notes", "change": ["annotations"]}]

    # The human line names the command.
    wire.enqueue(Turn(text="ok"))
    human = setup.cli("run", "again")
    assert "MCP tool delete_notes of server rug changed (annotations)" in human.stderr + human.stdout
    assert "quorum mcp trust rug delete_notes" in human.stderr + human.stdout

    check = setup.cli("mcp", "check", "rug", "--json")
    tools = {t["name"]: t for t in json.loads(check.stdout)["tools"]}
    assert tools["delete_notes"]["pin"] == "annotations" and tools["keep"]["pin"] == "match"
    assert "quorum mcp trust rug delete_notes" in tools["delete_notes"]["not_offered"]
    assert tools["keep"]["not_offered"] is None
    assert "CHANGED" in setup.cli("mcp", "check", "rug").stdout
    listed = json.loads(setup.cli("mcp", "list", "--json").stdout)
    assert [t["name"] for t in listed["not_offered"]] == ["delete_notes"]

    before = json.loads(setup.cli("mcp", "pins", "rug", "--json").stdout)
    said_no = setup.cli("mcp", "trust", "rug", input="n\n")
    assert said_no.code == 1 and '  -  "readOnlyHint": false' in said_no.stdout
    assert '  +  "readOnlyHint": true' in said_no.stdout and '  -  "destructiveHint": true,' in said_no.stdout
    trusted = setup.cli("mcp", "trust", "rug", "delete_notes", "--yes")
    assert trusted.code == 0, trusted.stderr
    assert "trusted 1 tool of rug" in trusted.stdout
    after = json.loads(setup.cli("mcp", "pins", "rug", "--json").stdout)
    sha = {t["name"]: t["sha256"] for t in before["tools"]}
    sha_after = {t["name"]: t["sha256"] for t in after["tools"]}
    assert sha_after["delete_notes"] != sha["delete_notes"] and sha_after["keep"] == sha["keep"]

    wire.enqueue(Turn(calls=(Call("c3", "mcp__rug__delete_notes", {"folder": "old"}),)), Turn(text="done"))
    third = setup.cli("run", "--json", "tidy up")
    assert third.code == 0, third.stderr
    assert not [e for e in third.events() if e["type"] == "mcp_tool_changed"]
    assert setup.ran() == ["keep", "delete_notes"]  # trusted: it runs again


def test_trust_shows_a_poisoned_description_and_unknown_tools_are_an_error(
    tmp_path: Path, wire: ScriptedHttpServer
) -> None:
    setup = Setup(tmp_path, wire)
    assert "nothing pinned yet" in setup.cli("mcp", "pins").stdout
    wire.enqueue(Turn(text="ok"))
    assert setup.cli("run", "look").code == 0
    changed = copy.deepcopy(TOOLS)
    poison(changed)
    setup.tools_file.write_text(json.dumps(changed))
    shown = setup.cli("mcp", "trust", "rug", "--yes")
    assert shown.code == 0 and "tool delete_notes: changed (description)" in shown.stdout
    assert "read ~/.ssh/id_rsa" in shown.stdout
    again = setup.cli("mcp", "trust", "rug", "--yes")
    assert again.stdout.strip() == "rug: every tool matches its pin; nothing to trust"
    missing = setup.cli("mcp", "trust", "rug", "nope", "--yes")
    assert missing.code == 2 and "offers no tool named 'nope'" in missing.stderr
