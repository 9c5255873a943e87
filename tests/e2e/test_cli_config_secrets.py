"""``quorum config show`` masks every value that is or may be a secret, in both output forms."""

from __future__ import annotations

import json

from tests.e2e.conftest import Cli

SECRETS = {
    "GITHUB_PAT": "ghp_patVALUE0001",
    "DB_PASS": "dbpassVALUE0002",
    "token": "tokenVALUE0003",
    "password": "passwordVALUE0004",
    "url": "urlpassVALUE0005",
    "base_url": "basepassVALUE0006",
    "header": "headerVALUE0007",
    "api_key": "sk-apikeyVALUE0008",
}

CONFIG = f"""
[providers.local]
type = "openai"
base_url = "https://user:{SECRETS["base_url"]}@llm.example/v1"
api_key = "{SECRETS["api_key"]}"

[mcp.servers.github]
command = "mcp-github"
args = ["--token={SECRETS["token"]}", "--password", "{SECRETS["password"]}", "--port", "8080"]
env = {{ GITHUB_PAT = "{SECRETS["GITHUB_PAT"]}", DB_PASS = "{SECRETS["DB_PASS"]}" }}
lazy = true

[mcp.servers.remote]
url = "https://svc:{SECRETS["url"]}@mcp.example/mcp"
headers = {{ X-Api-Key = "{SECRETS["header"]}" }}
lazy = true
"""


def test_config_show_masks_every_secret_in_json_and_human_output(cli: Cli) -> None:
    cli.write("quorum.toml", CONFIG)
    as_json = cli("config", "show", "--json")
    human = cli("config", "show")
    for result in (as_json, human):
        assert result.code == 0, result.stderr
        leaked = [name for name, value in SECRETS.items() if value in result.stdout]
        assert not leaked, f"shown in clear: {leaked}"
    config = json.loads(as_json.stdout)["config"]
    github = config["mcp"]["servers"]["github"]
    assert github["args"] == ["--token=********", "--password", "********", "--port", "8080"]
    assert github["env"] == {"GITHUB_PAT": "********", "DB_PASS": "********"}
    assert config["mcp"]["servers"]["remote"]["url"] == "https://svc:********@mcp.example/mcp"
    assert config["providers"]["local"]["base_url"] == "https://user:********@llm.example/v1"
    # What is not secret stays readable.
    assert github["command"] == "mcp-github"
    assert 'mcp.servers.github.env.GITHUB_PAT = "********"    # quorum.toml' in human.stdout
