"""No planted secret reaches any byte Quorum writes: stdout, stderr, --json, the run log (DB, WAL), or
what the model is sent — through env-printing commands, a workspace quorum.toml holding ``api_key``,
an MCP tool returning its environment, and a provider error echoing the key.

The model is the real OpenAI SDK talking to a local wire server, which records every request body.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from tests.e2e.conftest import Cli
from tests.support.http_server import ScriptedHttpServer
from tests.support.script import Call, Fail, Turn

PROBE = Path(__file__).resolve().parents[1] / "support" / "mcp_servers" / "probe_server.py"

CONFIG_KEY = "sk-config-key-planted-0f3c9a77"
ENV_KEY = "sk-env-openai-planted-81b2d4e6"
ANTHROPIC_KEY = "sk-ant-planted-3e5a0c11d2"
MCP_SECRET = "mcp-db-password-planted-77aa"
GITHUB_TOKEN = "ghp_planted_token_5c4b3a2918"
SECRETS = (CONFIG_KEY, ENV_KEY, ANTHROPIC_KEY, MCP_SECRET, GITHUB_TOKEN)


def _configure(cli: Cli, openai_wire: ScriptedHttpServer) -> None:
    cli.write(
        "quorum.toml",
        f"""
[providers.local]
type = "openai"
base_url = "{openai_wire.url}/v1"
api_key = "{CONFIG_KEY}"
max_retries = 0

[mcp.servers.probe]
command = {json.dumps(sys.executable)}
args = [{json.dumps(str(PROBE))}]
env = {{ PROBE_DB_PASSWORD = "{MCP_SECRET}" }}

[tools.risk]
"mcp__probe__*" = "low"

[secrets]
redact_env = ["GITHUB_TOKEN"]
""",
    )


def _everything(cli: Cli, result_text: str, root: Path) -> str:
    written = result_text
    for db in root.glob("runs.db*"):
        written += db.read_bytes().decode("latin-1")
    return written


def test_no_secret_in_any_output_the_log_or_the_model_requests(
    cli: Cli, openai_wire: ScriptedHttpServer, tmp_path: Path
) -> None:
    _configure(cli, openai_wire)
    script = (
        Turn(
            calls=(
                Call("c1", "run_command", {"command": "printenv; echo $OPENAI_API_KEY"}),
                Call("c2", "run_command", {"command": "cat quorum.toml"}),
                Call("c3", "read_file", {"path": "quorum.toml"}),
                Call("c4", "grep_search", {"pattern": "api_key|PASSWORD"}),
                Call("c5", "mcp__probe__getenv", {"name": "PROBE_DB_PASSWORD"}),
                Call("c6", "mcp__probe__getenv", {"name": "OPENAI_API_KEY"}),
                Call("c7", "run_command", {"command": "printenv > approved-env.txt; printenv"}),
                # Refused (not read yet) with the file's content shown: redacted like any result.
                Call("c8", "edit_file", {"path": "quorum.toml", "old_text": "[secrets]", "new_text": "[s]"}),
            )
        ),
        Fail(401, f"Incorrect API key provided: {CONFIG_KEY}. You can find your API key at …"),
    )
    openai_wire.enqueue(*script, *script)  # one run with --json, one with the human output
    env = {"OPENAI_API_KEY": ENV_KEY, "ANTHROPIC_API_KEY": ANTHROPIC_KEY, "GITHUB_TOKEN": GITHUB_TOKEN}

    result = cli("run", "--json", "--yes", "--model", "local:m", "leak the keys", **env)
    human = cli("run", "--yes", "--model", "local:m", "again", **env)  # the human output, same script shape

    assert result.code == 1, result.stderr
    events = result.events()
    outputs = {e["call_id"]: e for e in events if e["type"] == "tool_result"}
    assert "[REDACTED:providers.local.api_key]" in outputs["c3"]["output"] and outputs["c3"]["redacted"]
    assert "[REDACTED:providers.local.api_key]" in outputs["c2"]["output"]
    assert "[REDACTED:mcp.servers.probe.env.PROBE_DB_PASSWORD]" in outputs["c5"]["output"]
    assert outputs["c5"]["redacted"] and not outputs["c6"]["redacted"]
    assert "[REDACTED:providers.local.api_key]" in outputs["c8"]["output"] and "[secrets]" in outputs["c8"]["output"]
    assert events[-1]["type"] == "run_finished" and events[-1]["stop_reason"] == "error"
    assert "[REDACTED:providers.local.api_key]" in events[-1]["detail"]
    approved_env = (cli.workspace / "approved-env.txt").read_text()
    assert "PATH=" in approved_env  # the approved command ran, on the host, with the user's environment…
    for secret in SECRETS:
        assert secret not in approved_env  # …minus every secret Quorum knows
        assert secret not in _everything(cli, result.stdout + result.stderr + human.stdout + human.stderr, tmp_path)
        assert secret not in json.dumps(openai_wire.bodies()), f"{secret} was sent to the model"
