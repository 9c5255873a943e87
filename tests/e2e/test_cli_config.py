"""``quorum config show`` / ``config validate`` and ``quorum tools list`` / ``plugins list``."""

from __future__ import annotations

import json

from tests.e2e.conftest import REPO, Cli

SECRET = "sk-test-SECRET-1234567890"


def test_config_show_gives_values_sources_and_masks_secrets(cli: Cli) -> None:
    cli.write(
        "quorum.toml",
        f'[agent]\nmax_tool_turns = 4\n[providers.local]\ntype = "openai"\nbase_url = "http://127.0.0.1:9/v1"\n'
        f'api_key = "{SECRET}"\nheaders = {{ Authorization = "Bearer {SECRET}" }}\n',
    )
    result = cli("config", "show", "--json", QUORUM_AGENT__TIMEOUT_SECONDS="33")
    assert result.code == 0, result.stderr
    assert SECRET not in result.stdout
    shown = json.loads(result.stdout)
    assert shown["config"]["agent"]["max_tool_turns"] == 4
    assert shown["sources"]["agent.max_tool_turns"] == "quorum.toml"
    assert shown["sources"]["agent.timeout_seconds"] == "environment"
    assert shown["sources"]["agent.max_parallel_tools"] == "default"
    assert shown["config"]["providers"]["local"]["type"] == "openai"
    human = cli("config", "show")
    assert SECRET not in human.stdout and "agent.max_tool_turns = 4    # quorum.toml" in human.stdout


def test_config_validate(cli: Cli) -> None:
    assert cli("config", "validate", "--config", str(REPO / "quorum.toml")).code == 0
    cli.write("bad.toml", '[review]\nrule = "most"\n')
    result = cli("config", "validate", "--config", "bad.toml")
    assert result.code == 2 and "bad.toml: review.rule:" in result.stderr and "Traceback" not in result.stderr


def test_tools_and_plugins_are_listed(cli: Cli) -> None:
    tools = {json.loads(line)["name"]: json.loads(line) for line in cli("tools", "list", "--json").stdout.splitlines()}
    assert tools["read_file"]["risk"] == "low" and tools["write_file"]["risk"] == "high"
    assert tools["read_file"]["source"] == "builtin"
    plugins = [json.loads(line) for line in cli("plugins", "list", "--json").stdout.splitlines()]
    offline = next(p for p in plugins if p["name"] == "quorum.offline")
    assert offline["builtin"] and {r["name"] for r in offline["registered"]} == {"test", "scripted"}
