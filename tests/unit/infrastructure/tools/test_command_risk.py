"""The run_command risk table: read-only commands are low, everything else is high.

Includes the holes copilot-quorum had (shared/research/copilot-quorum.md §6.4 and §10.4):
redirection without spaces, allow-listed programs with mutating options, wrapper commands,
build/test commands that run arbitrary code.
"""

from __future__ import annotations

import pytest

from quorum.domain.tools import RiskLevel
from quorum.infrastructure.tools.command_risk import classify_command

LOW_COMMANDS = [
    "ls",
    "ls -la src",
    "pwd",
    "cat README.md",
    "head -n 20 setup.py",
    "tail -5 log.txt",
    "wc -l *.py",
    "echo hello world",
    'echo "a > b"',  # quoted, not a redirection
    "echo a\\>b",  # escaped, not a redirection
    "grep -rn TODO .",
    "rg -n 'def main' src",
    "find . -name '*.py' -type f",
    "git status",
    "git log --oneline -n 5",
    "git diff HEAD~1",
    "git show HEAD:README.md",
    "git --no-pager log -1",
    "git branch",
    "git branch -a",
    "git tag",
    "git remote -v",
    "git stash list",
    "ls | grep py",
    "cat a.txt | sort | uniq -c",
    "ls && pwd",
    "ls; pwd",
    "grep foo bar.txt || echo none",
    "ls 2>&1 | head",
    "ls missing 2>/dev/null",
    "sort < names.txt",
    "cd src && ls",
    "date",
    "",
]

HIGH_COMMANDS = [
    # redirection in any spelling (copilot missed the unspaced forms)
    "echo x > out.txt",
    "echo x>out.txt",
    "echo x >>log",
    "echo x>>log",
    "ls &>listing",
    "ls >| f",
    "cat a 2>errors.txt",
    "echo '>' > f",
    # command / process substitution, subshells, multi-line
    "echo $(rm -rf /)",
    "echo `id`",
    'echo "$(whoami)"',
    "cat <(ls)",
    "(ls)",
    "ls\nrm -rf x",
    # chains into a non-allow-listed command
    "ls; rm -rf build",
    "ls && rm x",
    "false || rm x",
    "ls | sh",
    "cat list | xargs rm",
    "ls & rm x",
    # wrappers and assignments
    "env rm -rf /",
    "sudo ls",
    "xargs rm",
    "nice rm x",
    "timeout 5 rm x",
    "LD_PRELOAD=/tmp/evil.so ls",
    "FOO=1 ls",
    "./ls",
    "/bin/rm -rf x",
    # unknown / mutating programs
    "rm -rf build",
    "mv a b",
    "cp a b",
    "chmod +x run.sh",
    "curl https://example.com",
    "sed -i s/a/b/ f",
    "awk '{system(\"rm x\")}' f",
    "python -c 'print(1)'",
    "make",
    "npm install",
    "npm test",
    "cargo test",
    "cargo build",
    "cargo fmt",
    "go test ./...",
    "pip install requests",
    # allow-listed programs with mutating options (copilot's holes)
    "find . -delete",
    "find . -name '*.tmp' -exec rm {} ;",
    "find . -execdir sh -c x ;",
    "find . -fprint out.txt",
    "git branch -D main",
    "git branch newbranch",
    "git tag -d v1",
    "git tag v2",
    "git remote add evil https://example.com",
    "git diff --output=patch.txt",
    "git -c core.pager=sh log",
    "git -C /elsewhere status",
    "git commit -m x",
    "git push",
    "git checkout -- .",
    "git reset --hard",
    "git stash",
    "sort -o out.txt in.txt",
    "sort -uo out.txt in.txt",
    "sort --output=out.txt in.txt",
    "uniq in.txt out.txt",
    "diff --output=d a b",
    "rg --pre=./evil pattern",
    "tree -o out.txt",
    "date -s '2020-01-01'",
    # reads outside the workspace
    "cat /etc/passwd",
    "cat ~/.ssh/id_rsa",
    "cat ../secrets.env",
    "cd / && ls",
    "grep -r password ../other-project",
    "head --lines=5 /var/log/syslog",
    "ls src/../../",
    # unparseable
    "echo 'unterminated",
]


@pytest.mark.parametrize("command", LOW_COMMANDS)
def test_read_only_commands_are_low(command: str) -> None:
    assessment = classify_command(command)
    assert assessment.level is RiskLevel.LOW, assessment.reason


@pytest.mark.parametrize("command", HIGH_COMMANDS)
def test_other_commands_are_high_with_a_reason(command: str) -> None:
    assessment = classify_command(command)
    assert assessment.level is RiskLevel.HIGH
    assert assessment.reason


def test_the_table_is_large_enough() -> None:
    assert len(LOW_COMMANDS) + len(HIGH_COMMANDS) >= 40


@pytest.mark.parametrize(
    ("command", "fragment"),
    [
        ("echo x>f", "redirection"),
        ("env rm x", "'env'"),
        ("find . -delete", "-delete"),
        ("ls; rm x", "'rm'"),
        ("echo $(id)", "substitution"),
        ("LD_PRELOAD=x ls", "LD_PRELOAD"),
    ],
)
def test_reasons_name_the_problem(command: str, fragment: str) -> None:
    assert fragment in classify_command(command).reason


def test_low_reason_lists_the_programs() -> None:
    assert classify_command("git status && ls | wc -l").reason == "read-only command (git status, ls, wc)"
