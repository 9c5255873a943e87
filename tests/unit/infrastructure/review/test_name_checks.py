"""The name checks of safety settings: what is an error, what is only not checked, and the wording."""

from __future__ import annotations

from typing import Any

import pytest

from quorum.domain.errors import ConfigurationError
from quorum.domain.tools import ToolDefinition, ToolParameter
from quorum.infrastructure.review.name_checks import NameReport, check_names
from quorum.infrastructure.tools.known_tools import KnownTools, known_tools, literal_start
from tests.support.config import settings_from

BUILTIN = [
    ToolDefinition(name="read_file", parameters=(ToolParameter(name="path"),)),
    ToolDefinition(name="write_file", parameters=(ToolParameter(name="path"), ToolParameter(name="content"))),
    ToolDefinition(name="run_command", parameters=(ToolParameter(name="command"),)),
]
PLUGINS = ["quorum.offline", "quorum.openai", "echo"]


def tools(
    mcp: dict[str, Any] | None = None, *, sources: tuple[str, ...] = (), extra: tuple[ToolDefinition, ...] = ()
) -> KnownTools:
    servers = mcp or {}
    return known_tools(
        [*BUILTIN, *extra],
        servers,
        mcp_prefixes={name: f"mcp__{name}__" for name in servers},
        unlisted_sources=sources,
    )


def check(data: dict[str, Any], known: KnownTools | None = None) -> NameReport:
    return check_names(settings_from(data), known or tools(), PLUGINS)


def errors(report: NameReport) -> dict[str, str]:
    return {p.key: p.message for p in report.errors}


def rule(tool: str, **match: str) -> dict[str, Any]:
    return {"decision": "deny", "tool": tool, "match": match}


def test_names_that_exist_pass() -> None:
    report = check(
        {
            "tools": {"enabled": ["*_file", "run_command"], "disabled": ["write_*"], "risk": {"read_file": "high"}},
            "review": {"rules": [rule("run_command", command="git push*"), rule("*_file", path="docs/**")]},
            "plugins": {"blocked": ["echo", "quorum.openai"]},
        }
    )
    assert report.errors == [] and report.warnings() == []


@pytest.mark.parametrize(
    ("data", "key", "message"),
    [
        (
            {"tools": {"disabled": ["run_comand"]}},
            "tools.disabled[0]",
            "'run_comand' matches no tool; did you mean 'run_command'?",
        ),
        ({"tools": {"enabled": ["*", "reed_*"]}}, "tools.enabled[1]", "'reed_*' matches no tool"),
        (
            {"tools": {"risk": {"wrte_file": "low"}}},
            "tools.risk.wrte_file",
            "'wrte_file' matches no tool; did you mean 'write_file'?",
        ),
        (
            {"review": {"rules": [rule("write_fle")]}},
            "review.rules[0].tool",
            "'write_fle' matches no tool; did you mean 'write_file'?",
        ),
        (
            {"review": {"rules": [rule("write_file", pth="docs/**")]}},
            "review.rules[0].match.pth",
            "'pth' is not an argument of write_file; did you mean 'path'?",
        ),
        ({"plugins": {"blocked": ["ecoh"]}}, "plugins.blocked[0]", "'ecoh' names no plugin; did you mean 'echo'?"),
    ],
)
def test_a_name_matching_nothing_is_an_error_with_a_suggestion(data: dict[str, Any], key: str, message: str) -> None:
    assert errors(check(data))[key].startswith(message)


def test_no_suggestion_says_where_to_look() -> None:
    found = errors(check({"tools": {"disabled": ["zzz"]}, "plugins": {"blocked": ["zzz"]}}))
    assert found["tools.disabled[0]"] == "'zzz' matches no tool (see `quorum tools list`)"
    assert found["plugins.blocked[0]"] == "'zzz' names no plugin (plugins: echo, quorum.offline, quorum.openai)"


def test_rule_globs_use_the_policy_syntax() -> None:
    # '*' in a policy glob without '/' matches anything; '[!r]*' excludes read_file and run_command.
    report = check({"review": {"rules": [rule("[!r]*", path="x"), rule("*", command="git*")]}})
    assert report.errors == []
    found = errors(check({"review": {"rules": [rule("[!rw]*")]}}))
    assert found["review.rules[0].tool"].startswith("'[!rw]*' matches no tool")


def test_an_argument_of_any_matched_tool_will_do_and_the_error_lists_them() -> None:
    assert check({"review": {"rules": [rule("*_file", content="x")]}}).errors == []
    found = errors(check({"review": {"rules": [rule("*_file", contnt="x")]}}))
    assert found["review.rules[0].match.contnt"] == (
        "'contnt' is not an argument of any tool matching '*_file' (read_file, write_file); did you mean 'content'?"
    )


def test_plugin_function_tools_are_known_with_their_arguments() -> None:
    echo = ToolDefinition(name="echo", input_schema={"type": "object", "properties": {"text": {"type": "string"}}})
    known = tools(extra=(echo,))
    assert check({"review": {"rules": [rule("echo", text="*")]}}, known).errors == []
    assert "review.rules[0].match.txt" in errors(check({"review": {"rules": [rule("echo", txt="*")]}}, known))


def test_cached_mcp_tools_are_checked_like_the_others() -> None:
    known = tools({"time": {"mcp__time__now": {"type": "object", "properties": {"timezone": {}}}}})
    assert check({"tools": {"risk": {"mcp__time__*": "low"}}}, known).errors == []
    found = errors(
        check({"tools": {"disabled": ["mcp__time__nwo"]}, "review": {"rules": [rule("mcp__time__now", tz="x")]}}, known)
    )
    assert found["tools.disabled[0]"] == "'mcp__time__nwo' matches no tool; did you mean 'mcp__time__now'?"
    assert found["review.rules[0].match.tz"].startswith("'tz' is not an argument of mcp__time__now")


def test_a_server_not_listed_yet_makes_its_globs_warnings_once() -> None:
    known = tools({"time": None})
    report = check(
        {
            "tools": {"risk": {"mcp__time__*": "low"}, "disabled": ["mcp__*", "run_comand"]},
            "review": {"rules": [rule("mcp__time__now", tz="x")]},
        },
        known,
    )
    assert list(errors(report)) == ["tools.disabled[1]"]  # not an MCP glob: still an error
    (warning,) = report.warnings()
    assert warning == (
        "tools.disabled[0], tools.risk.mcp__time__*, review.rules[0].tool not checked: MCP server 'time' has not "
        "listed its tools yet (`quorum mcp check time` lists them)"
    )


def test_another_servers_glob_is_still_an_error() -> None:
    report = check({"tools": {"disabled": ["mcp__github__*"]}}, tools({"time": None}))
    assert list(errors(report)) == ["tools.disabled[0]"]


def test_a_tool_without_a_declared_schema_leaves_rule_arguments_unchecked() -> None:
    known = tools({"time": {"mcp__time__now": None}})
    report = check({"review": {"rules": [rule("mcp__time__now", tz="x")]}}, known)
    assert report.errors == []
    assert report.warnings() == [
        "review.rules[0].match.tz not checked: the arguments of 'mcp__time__now' are not known"
    ]


def test_a_third_party_tool_source_makes_unknown_tool_names_warnings() -> None:
    report = check(
        {"tools": {"disabled": ["weather"]}, "review": {"rules": [rule("write_file", pth="x")]}},
        tools(sources=("weather",)),
    )
    assert report.errors == []
    assert report.warnings() == [
        "tools.disabled[0], review.rules[0].match.pth not checked: "
        "tool source 'weather' cannot be listed without starting it"
    ]


def test_errors_are_raised_as_one_configuration_error_naming_file_and_key() -> None:
    report = check({"tools": {"disabled": ["run_comand"]}, "plugins": {"blocked": ["ecoh"]}})
    origins = {"tools.disabled": "quorum.toml"}
    with pytest.raises(ConfigurationError) as info:
        report.raise_errors(origins.get)
    assert str(info.value).splitlines() == [
        "quorum.toml: tools.disabled[0]: 'run_comand' matches no tool; did you mean 'run_command'?",
        "plugins.blocked[0]: 'ecoh' names no plugin; did you mean 'echo'?",
    ]
    NameReport().raise_errors(origins.get)  # nothing to raise


def test_literal_start() -> None:
    assert [literal_start(p) for p in ("mcp__time__*", "run_command", "a?b", "[ab]c", "*")] == [
        "mcp__time__",
        "run_command",
        "a",
        "",
        "",
    ]
