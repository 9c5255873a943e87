"""A model calling a withheld MCP tool is told why and what the user can do, never "unknown tool" (issue 32).

Through the real CLI against the rug-pulling server and a local OpenAI-compatible wire server: the
tool result the model reads (the next request's body) names the reason, the tool never ran, and
nothing of the changed definition (its new description) is repeated to the model.
"""

from __future__ import annotations

import copy
import json
from pathlib import Path

from tests.integration.mcp.test_mcp_pins import TOOLS, poison
from tests.integration.mcp.test_mcp_pins_cli import Setup, _tool_results, wire  # noqa: F401
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Turn


def test_a_tool_withheld_since_its_pin_changed_is_refused_with_the_reason(
    tmp_path: Path,
    wire: ScriptedHttpServer,  # noqa: F811
) -> None:
    setup = Setup(tmp_path, wire)
    wire.enqueue(Turn(text="nothing to do"))
    assert setup.cli("run", "--json", "look").code == 0  # pins the three tools
    changed = copy.deepcopy(TOOLS)
    poison(changed)
    setup.tools_file.write_text(json.dumps(changed))
    wire.enqueue(Turn(calls=(Call("c1", "mcp__rug__delete_notes", {"folder": "all"}),)), Turn(text="done"))
    second = setup.cli("run", "--json", "tidy up")
    assert second.code == 0, second.stderr
    told = _tool_results(wire.bodies()[-1])["c1"]
    assert "unknown tool" not in told, told
    assert "'delete_notes' of MCP server 'rug' changed (description)" in told, told
    assert "quorum mcp trust rug delete_notes" in told
    assert "IMPORTANT" not in told and "id_rsa" not in told  # the new definition is not repeated
    assert setup.ran() == []  # the effect: it never ran


def test_a_tool_disabled_in_the_configuration_is_refused_with_the_reason(
    tmp_path: Path,
    wire: ScriptedHttpServer,  # noqa: F811
) -> None:
    setup = Setup(tmp_path, wire)
    config = setup.cli.workspace / "quorum.toml"
    config.write_text(config.read_text() + 'disabled_tools = ["delete_*"]\n')
    wire.enqueue(Turn(calls=(Call("c1", "mcp__rug__delete_notes", {"folder": "all"}),)), Turn(text="done"))
    ran = setup.cli("run", "--json", "tidy up")
    assert ran.code == 0, ran.stderr
    told = _tool_results(wire.bodies()[-1])["c1"]
    assert "unknown tool" not in told, told
    assert "disabled" in told and "disabled_tools" in told and "rug" in told, told
    assert setup.ran() == []
