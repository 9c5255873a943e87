"""``PinStore``: fingerprints, what counts as a change, and a damaged file failing closed."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from quorum.infrastructure.mcp.pins import PinStore, changes_between
from quorum.infrastructure.mcp.server_tools import ServerTool, tool_fingerprint
from quorum.infrastructure.mcp.settings import McpServerSettings

SETTINGS = McpServerSettings(command="srv", args=["--x"])
DEFINITION = {
    "name": "t",
    "description": "d",
    "inputSchema": {"type": "object", "properties": {"a": {"type": "string"}}},
    "annotations": {"readOnlyHint": False},
}


def _tool(definition: dict[str, object]) -> ServerTool:
    return ServerTool(name="t", description="d", input_schema={}, definition=dict(definition))


def test_the_fingerprint_ignores_key_order_and_nothing_else() -> None:
    reordered = json.loads(json.dumps(dict(reversed(list(DEFINITION.items())))))
    assert tool_fingerprint(reordered) == tool_fingerprint(DEFINITION)
    assert tool_fingerprint({**DEFINITION, "description": "d "}) != tool_fingerprint(DEFINITION)


def test_changes_name_each_field_that_differs_in_a_fixed_order() -> None:
    changed = {**DEFINITION, "title": "T", "annotations": {"readOnlyHint": True}, "outputSchema": {}}
    assert changes_between(DEFINITION, changed) == ["title", "output_schema", "annotations"]
    assert changes_between(None, DEFINITION) == ["new"]
    assert changes_between(DEFINITION, dict(DEFINITION)) == []


def test_first_use_pins_once_and_a_damaged_file_withholds_everything(tmp_path: Path) -> None:
    store = PinStore(tmp_path)
    assert store.pin_first_use("s", SETTINGS, [_tool(DEFINITION)]) is True
    assert store.pin_first_use("s", SETTINGS, [_tool({**DEFINITION, "description": "x"})]) is False
    check = store.check("s", SETTINGS, [_tool(DEFINITION)])
    assert [t.name for t in check.trusted] == ["t"] and check.withheld == [] and check.pinned
    store.path("s", SETTINGS).write_text("{not json")
    damaged = store.check("s", SETTINGS, [_tool(DEFINITION)])
    assert damaged.trusted == [] and [w.change for w in damaged.withheld] == [["new"]]
    assert store.pin_first_use("s", SETTINGS, [_tool(DEFINITION)]) is False  # not trusted anew


def test_another_command_has_its_own_pins(tmp_path: Path) -> None:
    store = PinStore(tmp_path)
    store.pin_first_use("s", SETTINGS, [_tool(DEFINITION)])
    other = McpServerSettings(command="srv", args=["--y"])
    assert store.load("s", other) is None
    assert store.load("s", SETTINGS) is not None


def test_the_pins_tasks_and_the_mcp_commands_import_no_sdk() -> None:
    code = (
        "import sys\n"
        "import quorum.infrastructure.mcp.pin_gate, quorum.infrastructure.mcp.tasks, quorum.infrastructure.mcp.source\n"
        "from quorum.cli.main import cli\n"
        "for args in (['mcp', '--help'], ['mcp', 'trust', '--help'], ['mcp', 'pins', '--help']):\n"
        "    try:\n"
        "        cli.main(args=args, prog_name='quorum', standalone_mode=False)\n"
        "    except SystemExit:\n"
        "        pass\n"
        "print('LOADED', sorted(m for m in sys.modules if m.split('.')[0] in ('mcp', 'mcp_types', 'rich')))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip().splitlines()[-1] == "LOADED []"
