"""Rules over argument views: deny/ask on any form, allow only when every form is covered and complete."""

from __future__ import annotations

from quorum.domain.policy import ArgumentView, PolicyRule, first_match


def rule(decision: str, pattern: str, tool: str = "run_command", key: str = "command") -> PolicyRule:
    return PolicyRule(decision=decision, tool=tool, match={key: pattern})  # type: ignore[arg-type]


def command(raw: str, *forms: str, complete: bool = True) -> tuple[dict[str, str], dict[str, ArgumentView]]:
    return {"command": raw}, {"command": ArgumentView(forms=forms, complete=complete)}


def test_deny_matches_any_simple_command_or_the_raw_text() -> None:
    rules = [rule("deny", "rm*")]
    assert first_match(rules, "run_command", *command("ls && rm x", "ls", "rm x")) == rules[0]
    assert first_match(rules, "run_command", *command("rm x")) == rules[0]  # raw text, no forms
    assert first_match(rules, "run_command", *command("ls", "ls")) is None


def test_allow_needs_every_simple_command_covered_by_some_allow_rule() -> None:
    rules = [rule("allow", "make test*"), rule("allow", "ls*")]
    assert first_match(rules, "run_command", *command("make test", "make test")) == rules[0]
    assert first_match(rules, "run_command", *command("ls && make test", "ls", "make test")) == rules[1]
    assert first_match(rules, "run_command", *command("make test; touch X", "make test", "touch X")) is None
    assert first_match(rules, "run_command", *command("make test >x", "make test", complete=False)) is None


def test_deny_wins_over_allow_and_ask_over_allow() -> None:
    rules = [rule("allow", "*"), rule("ask", "git push*"), rule("deny", "rm*")]
    assert first_match(rules, "run_command", *command("rm -rf /", "rm -rf /")).decision == "deny"  # type: ignore[union-attr]
    assert first_match(rules, "run_command", *command("git push", "git push")).decision == "ask"  # type: ignore[union-attr]
    assert first_match(rules, "run_command", *command("ls", "ls")).decision == "allow"  # type: ignore[union-attr]


def test_paths_match_their_resolved_form_and_outside_paths_are_never_allowed() -> None:
    deny = rule("deny", "secrets/**", tool="write_file", key="path")
    allow = rule("allow", "docs/**", tool="write_file", key="path")
    resolved = {"path": ArgumentView(forms=("secrets/x",))}
    assert first_match([deny, allow], "write_file", {"path": "docs/../secrets/x"}, resolved) == deny
    escaped = {"path": ArgumentView(forms=("/etc/passwd",), complete=False)}
    assert first_match([allow], "write_file", {"path": "docs/../../etc/passwd"}, escaped) is None
    inside = {"path": ArgumentView(forms=("a.txt",))}
    assert first_match([allow], "write_file", {"path": "docs/../a.txt"}, inside) is None


def test_a_rule_without_match_allows_only_complete_calls() -> None:
    everything = PolicyRule(decision="allow", tool="run_command")
    assert first_match([everything], "run_command", *command("ls", "ls")) == everything
    assert first_match([everything], "run_command", *command("ls >x", "ls", complete=False)) is None
