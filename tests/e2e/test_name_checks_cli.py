"""Names in safety settings are checked by ``config validate``, ``run``, ``ask`` and ``review-check``:
a name that matches nothing exits 2 with a suggestion before anything runs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from quorum.infrastructure.mcp.cache import ToolListCache
from quorum.infrastructure.mcp.settings import McpServerSettings
from tests.e2e.conftest import REPO, Cli

BAD_SETTINGS = [
    (
        '[tools]\ndisabled = ["run_comand"]\n',
        "quorum.toml: tools.disabled[0]: 'run_comand' matches no tool; did you mean 'run_command'?",
    ),
    (
        '[tools]\nenabled = ["read_file", "lst_dir"]\n',
        "quorum.toml: tools.enabled[1]: 'lst_dir' matches no tool; did you mean 'list_dir'?",
    ),
    (
        '[tools.risk]\nwrte_file = "low"\n',
        "quorum.toml: tools.risk.wrte_file: 'wrte_file' matches no tool; did you mean 'write_file'?",
    ),
    (
        '[[review.rules]]\ndecision = "allow"\ntool = "write_fle"\n',
        "quorum.toml: review.rules[0].tool: 'write_fle' matches no tool; did you mean 'write_file'?",
    ),
    (
        '[[review.rules]]\ndecision = "allow"\ntool = "write_file"\nmatch = { pth = "docs/**" }\n',
        "quorum.toml: review.rules[0].match.pth: 'pth' is not an argument of write_file; did you mean 'path'?",
    ),
    (
        '[plugins]\nblocked = ["quorum.opneai"]\n',
        "quorum.toml: plugins.blocked[0]: 'quorum.opneai' names no plugin; did you mean 'quorum.openai'?",
    ),
    (
        '[plugins]\nblocked = ["ecoh"]\n',
        "quorum.toml: plugins.blocked[0]: 'ecoh' names no plugin (plugins: quorum.anthropic,",
    ),
    (
        '[review]\nreviewers = ["test", "nosuchprovider:model"]\n',
        "quorum.toml: review.reviewers[1]: reviewer 'nosuchprovider:model' cannot be used: "
        "unknown provider 'nosuchprovider'",
    ),
    (
        '[review]\nreviewers = ["openai:gpt-4.1-mini"]\n',
        "quorum.toml: review.reviewers[0]: reviewer 'openai:gpt-4.1-mini' cannot be used: "
        "no API key for provider 'openai': set the environment variable OPENAI_API_KEY",
    ),
    (
        '[review]\nreviewers = ["scripted:missing.toml"]\n',
        "quorum.toml: review.reviewers[0]: reviewer 'scripted:missing.toml' cannot be used: "
        "scripted model: cannot read script 'missing.toml'",
    ),
]


def expect_config_error(result, message: str) -> None:  # type: ignore[no-untyped-def]
    assert result.code == 2, result.stderr
    assert f"quorum: configuration error: {message}" in result.stderr
    assert "Traceback" not in result.stderr


@pytest.mark.parametrize(("toml", "message"), BAD_SETTINGS)
def test_config_validate_names_the_key_and_the_fix(cli: Cli, toml: str, message: str) -> None:
    cli.write("quorum.toml", toml)
    expect_config_error(cli("config", "validate"), message)


@pytest.mark.parametrize(("toml", "message"), [BAD_SETTINGS[0], BAD_SETTINGS[4], BAD_SETTINGS[8]])
def test_run_and_ask_stop_before_anything_runs(cli: Cli, toml: str, message: str) -> None:
    cli.write("quorum.toml", toml)
    for command in ("run", "ask"):
        result = cli(command, "--model", "test", "--json", "look around")
        expect_config_error(result, message)
        assert result.stdout == ""
    assert sorted(p.name for p in cli.workspace.iterdir()) == ["quorum.toml"]
    assert cli("logs", "list", "--json").stdout.strip() == ""


def test_review_check_checks_names_and_rules_only_skips_the_panel(cli: Cli) -> None:
    cli.write("quorum.toml", BAD_SETTINGS[3][0])
    expect_config_error(cli("review-check", "write_file", '{"path": "a"}', "--rules-only"), BAD_SETTINGS[3][1])
    cli.write("quorum.toml", BAD_SETTINGS[8][0])
    expect_config_error(cli("review-check", "write_file", '{"path": "a"}'), BAD_SETTINGS[8][1])
    # no model is asked under --rules-only, so a reviewer without a key does not stop it
    result = cli("review-check", "write_file", '{"path": "a"}', "--rules-only", "--json")
    assert result.code == 0, result.stderr
    assert json.loads(result.stdout)["decided_by"] == "undecided"


def test_every_problem_is_listed_at_once(cli: Cli) -> None:
    chosen = [BAD_SETTINGS[i] for i in (0, 2, 3, 5, 7)]
    cli.write("quorum.toml", "".join(toml for toml, _ in chosen))
    result = cli("config", "validate")
    assert result.code == 2
    assert len(result.stderr.splitlines()) == len(chosen)
    for _, message in chosen:
        assert message in result.stderr


def test_the_sample_config_is_valid_and_warns_once_about_an_unlisted_server(cli: Cli) -> None:
    result = cli("config", "validate", "--config", str(REPO / "quorum.toml"))
    assert result.code == 0, result.stderr
    assert result.stderr.splitlines() == [
        "quorum: warning: tools.risk.mcp__time__* not checked: MCP server 'time' has not listed its tools yet "
        "(`quorum mcp check time` lists them)"
    ]


MCP = '[mcp.servers.time]\ncommand = "no-such-mcp-server"\nlazy = true\n'


def cache_time_tools(cli: Cli) -> None:
    """The tool list a previous run of the server would have cached."""
    cache = ToolListCache(Path(cli.env["XDG_DATA_HOME"]) / "quorum" / "cache" / "mcp-tools")
    schema = {"type": "object", "properties": {"timezone": {"type": "string"}}}
    cache.store(
        "time", McpServerSettings(command="no-such-mcp-server", lazy=True), [{"name": "now", "input_schema": schema}]
    )


def test_mcp_names_warn_until_the_server_listed_its_tools_then_are_checked(cli: Cli) -> None:
    cli.write("quorum.toml", MCP + '[tools]\ndisabled = ["mcp__time__nwo", "mcp__*"]\n')
    result = cli("config", "validate")
    assert result.code == 0, result.stderr
    (warning,) = result.stderr.splitlines()  # one line for both globs; the server was not started
    assert warning.startswith("quorum: warning: tools.disabled[0], tools.disabled[1] not checked: MCP server 'time'")

    cache_time_tools(cli)
    expect_config_error(
        cli("config", "validate"),
        "quorum.toml: tools.disabled[0]: 'mcp__time__nwo' matches no tool; did you mean 'mcp__time__now'?",
    )
    cli.write(
        "quorum.toml",
        MCP + '[[review.rules]]\ndecision = "deny"\ntool = "mcp__time__*"\nmatch = { timezon = "UTC" }\n',
    )
    expect_config_error(
        cli("config", "validate"),
        "quorum.toml: review.rules[0].match.timezon: 'timezon' is not an argument of mcp__time__now; "
        "did you mean 'timezone'?",
    )
