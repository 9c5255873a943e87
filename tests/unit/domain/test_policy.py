"""Policy rules: glob semantics, validation at load, and the deny → ask → allow order."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from quorum.domain.policy import GlobError, PolicyRule, compile_glob, first_match, glob_match


@pytest.mark.parametrize(
    ("pattern", "value", "matches"),
    [
        # no '/' in the pattern: '*' matches anything, '/' included
        ("mcp__github__*", "mcp__github__create_issue", True),
        ("mcp__github__*", "mcp__gitlab__create_issue", False),
        ("git push*", "git push origin feature/x", True),
        ("git push*", "git pushx", True),
        ("git push*", "echo git push", False),  # the whole value must match
        ("rm -rf*", "rm -rf /", True),
        ("*.md", "docs/guide.md", True),
        ("run_command", "run_command", True),
        ("run_command", "run_commands", False),
        ("write_?ile", "write_file", True),
        # a '/' in the pattern makes it a path pattern: '*' and '?' stay inside one segment
        ("docs/*", "docs/a.md", True),
        ("docs/*", "docs/sub/a.md", False),
        ("docs/**", "docs/sub/a.md", True),
        ("docs/**", "docs/", True),
        ("docs/**", "src/docs/a.md", False),
        ("**/secrets/**", "a/b/secrets/key.pem", True),
        ("src/?.py", "src/a.py", True),
        ("src/?.py", "src//.py", False),
        # sets
        ("file[0-9].txt", "file7.txt", True),
        ("file[0-9].txt", "filex.txt", False),
        ("file[!0-9].txt", "filex.txt", True),
        ("file[!0-9].txt", "file7.txt", False),
        ("a/[!x]", "a//", False),  # a negated set never matches '/' in a path pattern
        ("[]]x", "]x", True),
        # regex metacharacters are literal
        ("a.b+c(d)", "a.b+c(d)", True),
        ("a.b+c(d)", "axb+c(d)", False),
        ("line*", "line1\nline2", True),
        ("Run_Command", "run_command", False),  # case-sensitive
    ],
)
def test_glob_semantics(pattern: str, value: str, matches: bool) -> None:
    assert glob_match(pattern, value) is matches


@pytest.mark.parametrize("pattern", ["", "file[0-9", "a[]", "docs/***"])
def test_malformed_globs_are_errors(pattern: str) -> None:
    with pytest.raises(GlobError):
        compile_glob(pattern)


def rule(decision: str, tool: str, reason: str = "", **match: str) -> PolicyRule:
    return PolicyRule(decision=decision, tool=tool, match=match, reason=reason)  # type: ignore[arg-type]


def test_rules_are_validated_at_load() -> None:
    with pytest.raises(ValidationError, match="never closed"):
        PolicyRule.model_validate({"decision": "deny", "tool": "run_[command"})
    with pytest.raises(ValidationError, match=r"match\.path"):
        PolicyRule.model_validate({"decision": "deny", "tool": "x", "match": {"path": "a[]"}})
    with pytest.raises(ValidationError, match="extra"):
        PolicyRule.model_validate({"decision": "deny", "tool": "x", "when": "always"})
    with pytest.raises(ValidationError):
        PolicyRule.model_validate({"decision": "maybe", "tool": "x"})
    with pytest.raises(ValidationError):
        PolicyRule.model_validate({"decision": "allow", "tool": ""})
    with pytest.raises(ValidationError):
        PolicyRule.model_validate({"decision": "allow", "tool": "x", "match": {"n": 3}})


def test_deny_wins_over_an_earlier_allow_and_ask() -> None:
    rules = [
        rule("allow", "run_command", "anything goes"),
        rule("ask", "run_*"),
        rule("deny", "run_command", "no pushing", command="git push*"),
    ]
    assert first_match(rules, "run_command", {"command": "git push origin main"}) is rules[2]
    assert first_match(rules, "run_command", {"command": "ls"}) is rules[1]  # ask before allow
    assert first_match(rules, "write_file", {"path": "x"}) is None


def test_within_a_decision_the_written_order_wins() -> None:
    rules = [rule("allow", "write_file", "first", path="docs/**"), rule("allow", "write_*", "second")]
    assert first_match(rules, "write_file", {"path": "docs/a.md"}) is rules[0]
    assert first_match(rules, "write_file", {"path": "src/a.py"}) is rules[1]


@pytest.mark.parametrize(
    ("match", "arguments", "applies"),
    [
        ({"path": "docs/**"}, {"path": "docs/a/b.md"}, True),
        ({"path": "docs/**"}, {"path": "src/a.md"}, False),
        ({"path": "docs/**"}, {}, False),  # a missing argument never matches
        ({"path": "docs/**", "content": "*TODO*"}, {"path": "docs/a", "content": "a TODO b"}, True),
        ({"path": "docs/**", "content": "*TODO*"}, {"path": "docs/a", "content": "done"}, False),
        ({"force": "true"}, {"force": True}, True),  # non-strings match their JSON text
        ({"count": "1?"}, {"count": 12}, True),
        ({"argv": '[[]"rm"*'}, {"argv": ["rm", "-rf", "/"]}, True),  # '[[]' is a literal '['
        ({}, {"anything": 1}, True),
    ],
)
def test_argument_globs(match: dict[str, str], arguments: dict[str, Any], applies: bool) -> None:
    assert PolicyRule(decision="deny", tool="t", match=match).matches("t", arguments) is applies


def test_describe_reads_like_the_toml() -> None:
    text = rule("deny", "run_command", command="git push*").describe()
    assert text == 'deny run_command {command = "git push*"}'
