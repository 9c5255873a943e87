"""Policy rules against evasions, end to end (``quorum run --json``, scripted model), checked on disk.

The rules are the documented example set, read from docs/review-and-policy.md itself. Each case
is one call a hostile model makes to get around a rule; after the run the test looks at the files,
not at the events: a denied ``rm`` spelled any way leaves its victim in place, a denied path
reached by any alias is unchanged, an ``allow`` never approves more than it names, and
``deny``/``ask`` reach low-risk reads too.
Deny cases run with ``--yes`` (so only the rule stands between the call and the disk); allow
cases run without it (with no terminal, anything the rules do not allow is rejected).
"""

from __future__ import annotations

import json
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.e2e.conftest import Cli
from tests.support.docs import DOCS, marked_block

RULES = "[agent]\nmax_rejections = 1000\n" + marked_block(DOCS / "review-and-policy.md", "rules")
"""The documented example rule set (docs/review-and-policy.md, between the rules-example markers)."""

ENV_SECRET = "ENV-SECRET-5e8ff9bf55ba"
PRIVATE = "PRIVATE-NOTE-04ab2c"


@dataclass(frozen=True)
class Case:
    id: str
    tool: str
    arguments: dict[str, object]


def rm_cases() -> list[Case]:
    spellings = [
        "rm -f {v}",
        " rm -f {v}",
        "\\rm -f {v}",
        '"rm" -f {v}',
        "r''m -f {v}",
        "ls && rm -f {v}",
        "/bin/rm -f {v}",
        "command rm -f {v}",
        "env rm -f {v}",
        "echo {v} | xargs rm -f",
        "sh -c 'rm -f {v}'",
        "echo $(rm -f {v})",
        "timeout 5 rm -f {v}",
        "nice rm -f {v}",
        "(rm -f {v})",
        "true; rm -f {v}",
        "false || rm -f {v}",
        "find . -name {v} -exec rm {{}} \\;",
        "find . -name {v} -delete",
        "unlink {v}",
        "shred -u {v}",
        "exec rm -f {v}",
    ]
    return [
        Case(f"rm{i}", "run_command", {"command": spelling.format(v=f"victim{i}.txt")})
        for i, spelling in enumerate(spellings)
    ]


def secret_path_cases(ws: Path) -> list[Case]:
    paths = ["./secrets/x", str(ws / "secrets" / "x"), "docs/../secrets/x", "alias/x", "secrets//x", "secrets/./x"]
    return [Case(f"sec{i}", "write_file", {"path": p, "content": "pwned"}) for i, p in enumerate(paths)]


def env_read_cases() -> list[Case]:
    return [Case(f"env{i}", "read_file", {"path": p}) for i, p in enumerate([".env", "./.env", "docs/../.env"])]


def allow_cases() -> list[Case]:
    return [
        Case("ok_doc", "write_file", {"path": "docs/ok.md", "content": "fine"}),
        Case("up_a", "write_file", {"path": "docs/../a.txt", "content": "pwned"}),
        Case("up_git", "write_file", {"path": "docs/../.git/config", "content": "[core]\nfsmonitor = touch X\n"}),
        Case("link_out", "write_file", {"path": "docs/out/x", "content": "pwned"}),
        Case("ok_make", "run_command", {"command": "make test"}),
        Case("semi", "run_command", {"command": "make test; touch X1"}),
        Case("and", "run_command", {"command": "make test && touch X2"}),
        Case("redirect", "run_command", {"command": "make test > X3"}),
        Case("subst", "run_command", {"command": "make test $(touch X4)"}),
        Case("assign", "run_command", {"command": "MAKEFLAGS=-e make test; touch X5"}),
        Case("wrapped", "run_command", {"command": "nohup make test"}),
        Case("newline", "run_command", {"command": "make test\ntouch X6"}),
        Case("ask_private", "read_file", {"path": "private/p.txt"}),
    ]


def lab(cli: Cli, outside: Path) -> None:
    ws = cli.workspace
    cli.write("quorum.toml", RULES)
    for i in range(30):
        cli.write(f"victim{i}.txt", "victim\n")
    cli.write("secrets/x", "original secret\n")
    cli.write("a.txt", "original a\n")
    cli.write(".env", f"TOKEN={ENV_SECRET}\n")
    cli.write("private/p.txt", f"{PRIVATE}\n")
    cli.write("docs/readme.md", "docs\n")
    cli.write("Makefile", "test:\n\ttouch MADE_TEST\n")
    (ws / "alias").symlink_to(ws / "secrets", target_is_directory=True)
    outside.mkdir()
    (ws / "docs" / "out").symlink_to(outside, target_is_directory=True)
    subprocess.run(["git", "init", "-q"], cwd=ws, check=True)


def run(cli: Cli, cases: list[Case], *flags: str) -> dict[str, dict[str, object]]:
    calls = [{"id": c.id, "name": c.tool, "arguments": c.arguments} for c in cases]
    script = cli.workspace.parent / f"script-{len(cases)}-{'-'.join(flags)}.json"
    script.write_text(json.dumps({"turns": [{"tool_calls": calls}, {"text": "done"}]}))
    result = cli("run", "--json", *flags, "--model", f"scripted:{script}", "evade", timeout=180)
    assert result.code == 0, result.stderr
    events = result.events()
    by_id: dict[str, dict[str, object]] = {c.id: {} for c in cases}
    for event in events:
        key = event.get("call_id") or event.get("id")
        if key in by_id:
            by_id[key][event["type"]] = event
    return by_id


def test_deny_rules_hold_against_every_spelling_even_with_yes(cli: Cli, tmp_path: Path) -> None:
    lab(cli, tmp_path / "outside")
    ws = cli.workspace
    git_config = (ws / ".git" / "config").read_text()
    cases = rm_cases() + secret_path_cases(ws) + env_read_cases()
    outcome = run(cli, cases, "--yes")

    for i, case in enumerate(rm_cases()):
        assert (ws / f"victim{i}.txt").exists(), case.arguments
        review = outcome[case.id]["review"]
        assert review["approved"] is False and review["decided_by"] == "policy", case.arguments
    assert (ws / "secrets" / "x").read_text() == "original secret\n"
    for case in secret_path_cases(ws):
        assert outcome[case.id]["tool_result"]["is_rejected"], case.arguments
    for case in env_read_cases():
        result = outcome[case.id]["tool_result"]
        assert result["is_rejected"] and ENV_SECRET not in str(result["output"]), case.arguments
        assert "the .env file stays private" in str(result["output"])
    assert (ws / ".git" / "config").read_text() == git_config
    assert sum(1 for c in cases if outcome[c.id]["tool_call"]) == len(cases) >= 30


def test_allow_rules_approve_only_what_they_name(cli: Cli, tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    lab(cli, outside)
    ws = cli.workspace
    git_config = (ws / ".git" / "config").read_text()
    outcome = run(cli, allow_cases())

    assert (ws / "docs" / "ok.md").read_text() == "fine"  # the allowed write happened
    assert (ws / "MADE_TEST").exists()  # and the allowed command ran
    assert outcome["ok_make"]["review"]["decided_by"] == "policy"
    assert (ws / "a.txt").read_text() == "original a\n"
    assert (ws / ".git" / "config").read_text() == git_config
    assert list(outside.iterdir()) == []
    for marker in ("X", "X1", "X2", "X3", "X4", "X5", "X6"):
        assert not (ws / marker).exists(), marker
    for case in allow_cases():
        if case.id not in ("ok_doc", "ok_make"):
            review = outcome[case.id].get("review")
            if review is None:  # refused by the tool before any review (a file never read, a path leading out)
                result = outcome[case.id]["tool_result"]
                assert result["outcome"] == "invalid_arguments" and "not executed" in result["output"], case.id
                continue
            assert review["approved"] is False and review["decided_by"] != "policy", case.id
    private = outcome["ask_private"]
    assert private["tool_call"]["risk"] == "high"  # an ask rule sends a low-risk read to review
    assert PRIVATE not in str(private["tool_result"]["output"])


def test_an_ask_rule_on_a_low_risk_read_is_reviewed_and_runs_once_approved(cli: Cli, tmp_path: Path) -> None:
    lab(cli, tmp_path / "outside")
    outcome = run(cli, [Case("ask_private", "read_file", {"path": "private/p.txt"})], "--yes")
    private = outcome["ask_private"]
    assert private["review"]["approved"] is True and "private/**" in str(private["review"]["rule"])
    assert PRIVATE in str(private["tool_result"]["output"])
