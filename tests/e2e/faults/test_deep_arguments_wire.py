"""Argument text nested past Python's recursion limit, from a real provider wire and a JSON script."""

from __future__ import annotations

import json

import pytest

from tests.e2e.conftest import Cli
from tests.e2e.faults.harness import run_fault
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Turn

DEEP = '{"path": ' + "[" * 5000 + "]" * 5000 + "}"


@pytest.mark.parametrize("stream", ["true", "false"])
def test_deep_argument_text_from_the_wire_is_an_error_result(
    cli: Cli, openai_wire: ScriptedHttpServer, stream: str
) -> None:
    cli.write(
        "quorum.toml",
        f'[agent]\nstream = {stream}\n[providers.local]\ntype = "openai"\nbase_url = "{openai_wire.url}/v1"\n'
        'api_key = "x"\nmax_retries = 0\n',
    )
    openai_wire.enqueue(Turn(calls=(Call("deep", "read_file", DEEP),)), Turn(text="gave up"))
    result = run_fault(cli, "run", "--json", "--model", "local:m", "go", expect_code=0, timeout=30)
    (outcome,) = [e for e in result.events() if e["type"] == "tool_result"]
    assert outcome["is_error"] and "nested too deeply" in outcome["output"]
    sent = openai_wire.bodies()[1]["messages"]
    assert any(m.get("tool_call_id") == "deep" for m in sent)  # the model was told, the history stays valid


def test_a_json_script_nested_too_deeply_is_a_usage_error(cli: Cli) -> None:
    script = cli.workspace.parent / "deep.json"
    script.write_text('{"turns": ' + "[" * 5000 + "]" * 5000 + "}")
    result = run_fault(
        cli, "run", "--json", "--model", f"scripted:{script}", "go", expect_code=2, timeout=30, started=False
    )
    assert "nested too deeply" in result.stderr
    assert json.dumps(result.stdout) == '""'
