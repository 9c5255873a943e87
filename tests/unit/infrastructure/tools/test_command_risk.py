"""The run_command risk table: read-only commands are low, everything else is high.

Includes the holes copilot-quorum had (shared/research/copilot-quorum.md §6.4 and §10.4):
redirection without spaces, allow-listed programs with mutating options, wrapper commands,
build/test commands that run arbitrary code.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from quorum.domain.tools import RiskLevel
from quorum.infrastructure.tools.shell.risk import classify_command
from quorum.infrastructure.tools.shell.rules import ALLOWED
from quorum.infrastructure.tools.shell.syntax import parse_command

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
    # the parser reads what sh reads, so these are no longer falsely high
    "ls # a comment; rm x",
    "ls\npwd",
    "echo '$HOME'",
    "echo \\$HOME",
    "cd sub && ls",
    "cd ./src/pkg && ls -la",
    "tail -f log.txt",
    "tail --follow=name log.txt",
    "git status --porcelain",
    "git diff --stat HEAD~2",
    "git log --oneline main..feature",
    "grep -rn 'x' src/*.py",
    "ls .git",
    "cat .gitignore",
    "ls -la ./src/*",
    "sort -t, -k2 data.csv",
    "jq .name package.json",
    "echo hi > /dev/null 2>&1",
    "ls >&2",
    "sort < data/names.txt",
    "wc -l < names.txt",
    "diff a.txt b.txt",
    "md5sum a b",
    "find . -name '.*' -type f",
    "rg --passthru x",
    "! grep -q x f",
    "cat < /dev/null",
    "diff a.txt /dev/null",
    "git diff --output-indicator-new=+ HEAD",
    "rg -n --glob '*.py' TODO",
    "grep -r x --include=*.py .",
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
    "git show HEAD:README.md",
    # unparseable
    "echo 'unterminated",
    "echo $(ls",
    "(ls",
    # GNU getopt_long and git accept any unique prefix of a long option
    "git grep --no-index --open='touch PWNED;true' hello",
    "git grep --open-files-in-pager=vim x",
    "git grep --no-i x",
    "sort --out=F in.txt",
    "sort --o=F in.txt",
    "sort --compress-prog=sh in.txt",
    "sort --temporary-directory=d in.txt",
    "file --comp x",
    "file -C -m magic",
    "rg --pre=cat x",
    "rg --pre-g='*' --pre=./x y",
    "rg --hostname-bin=./x --hyperlink-format=x y",
    "rg -z x",
    "git diff --outp=F",
    "git diff --ext-d",
    "git log --ext-diff -p",
    "git log --textconv -p",
    "git log --output=F",
    "git diff --no-ext-diff --no-textconv",
    # a -- that is an option's value does not end the options
    "sort -T -- -o F in.txt",
    "git grep -e -- -O'touch PWNED'",
    "git grep -Ovim x",
    # input redirection, here-docs, here-strings
    "cat < ~/.ssh/id_rsa",
    "cat 0</etc/passwd",
    "cat<../x",
    "cat < /proc/self/environ",
    "cat <<EOF\nhello\nEOF",
    "cat <<< hello",
    "cat <> f",
    "ls >& out.txt",
    # $ expansions outside single quotes
    "cat ${x}/etc/passwd",
    "cat .${x}./x",
    "cat${IFS}/etc/passwd",
    "echo $OPENAI_API_KEY",
    "ls $HOME",
    'echo "$HOME"',
    "echo $'\\x2fetc'",
    "echo $((1+1))",
    # globs that can match .. or hidden directories
    "ls .*/",
    "cat .?/x",
    "grep -r X .*",
    "cat .[.]/x",
    "cat .[!a]*/x",
    "cat [.]*/x",
    "cat src/.*/x",
    # brace expansion (bash as sh)
    "cat {/etc/passwd,x}",
    "cat {..,x}/secret",
    # cd anywhere but a workspace sub-directory
    "cd",
    "cd -",
    "cd ~",
    "cd ~/x && ls",
    "cd .* && ls",
    "cd s* && ls",
    "cd .. && ls",
    "cd a b",
    # option values and attached values naming outside files
    "date -f FILE",
    "date -f/etc/passwd",
    "date --file=dates.txt",
    "file -f list.txt",
    "file --files-from list.txt",
    "grep -f/etc/x y",
    "grep -rf../x y",
    "grep --exclude-from=/x y .",
    "grep --from-file=/x y",
    "diff --from-file=/x a",
    "diff --to-file=b a",
    "comm a /etc/passwd",
    "ls --x=~/y",
    "ls a:/etc",
    "ls a,../b",
    "head -c10 -- -n~/x",
    "git diff --no-index a /etc/passwd",
    "git diff --no-index a b",
    "git blame --contents F x.py",
    "git blame --cont=F x.py",
    "sort --random-source=/x in.txt",
    "sort --files0-from=list",
    "wc --files0-from=list",
    "wc -l --files0-f=-",
    "du --files0-from=list",
    "md5sum -c sums.txt",
    "sha256sum --check sums.txt",
    "cat /proc/self/environ",
    # git pathspec magic and REV:path reach the repository root
    "git log -- :/",
    "git show :/secret",
    "git grep x -- ':(top)*'",
    "git log -- ':!x'",
    "git diff -- ':^x'",
    "git log --pretty=format:%h",
    # git global options
    "git --exec-path=/x log",
    "git --git-dir=x log",
    "git -P log",
    # environment printing
    "printenv",
    "printenv OPENAI_API_KEY",
    "env",
    "jq -n env",
    "jq -n '$ENV'",
    "jq 'env.X' f.json",
    "jq -n '\\(env)'",
    "jq -f filter.jq x.json",
    "jq -L lib 'import \"m\" as m; m::f' x",
    "jq --rawfile a f -n '$a'",
    # find actions, reference files and file lists
    "find . -fprint0 out",
    "find . -fprintf out '%p'",
    "find . -fls out",
    "find . -okdir rm {} ;",
    "find . -newer ref",
    "find . -newermt 2020-01-01 -newerXY ref",
    "find . -files0-from list",
    "find . -exec sh -c 'echo ok' \\;",
    # tree output and listing files
    "tree --fromfile list",
    "tree -R -o out.html",
    "tree --hintro=intro.html -H x",
    # uniq with an output file, printf -v
    "uniq -c in.txt out.txt",
    "uniq - out.txt",
    "printf -v x %s y",
    # wrappers found anywhere, nested scripts, programs in disguise
    "ls && sh -c 'ls'",
    "bash -lc 'cat README.md'",
    "eval ls",
    "command ls",
    "exec ls",
    "builtin cd sub",
    "nohup ls",
    "time ls",
    "busybox ls",
    "ls | tee out.txt",
    "l\\s; r\\m x",
    '"rm" x',
    "r''m x",
    "if true; then ls; fi",
    "for f in a; do cat $f; done",
    "f() { ls; }",
    "{ ls; }",
    "ls &\nrm x",
    # more: decompressors, old spellings, paths hidden behind /dev/null
    "file -z x.gz",
    "file --uncompress x.gz",
    "git stash list --outp=x",
    "cat /dev/null/../../etc/passwd",
    "diff /dev/null:/etc/passwd x",
    "ls | xargs cat",
    "cat x > /dev/stdout",
    "ls ;; rm x",
    "echo ~+",
    "find . -name .*",
    "git branch --set-upstream-to=x",
    # quorum.toml may hold provider keys; redaction cannot catch them transformed
    "cat quorum.toml",
    "cat quorum.toml | tr a-z n-za-m",
    "cat ./quorum.toml",
    "tr a-z n-za-m < quorum.toml",
    "cat quorum.t*",
    "cat *.toml",
    "cat ./q*",
    "grep -h key --include=quorum.toml -r .",
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
    assert len(LOW_COMMANDS) + len(HIGH_COMMANDS) >= 250


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


@pytest.mark.parametrize("command", ["<\\\n", "ls <\\\n"])
def test_the_text_classified_is_the_text_run(command: str) -> None:
    """A trailing backslash-newline is a line continuation (here a syntax error), not a backslash."""
    assert classify_command(command).level is RiskLevel.HIGH


@given(st.text(alphabet="$()`'\"\\{}[]*?<>|&;#~ \n-=:/.lsrmcatgitecho", max_size=80))
@settings(max_examples=500, deadline=None)
def test_never_raises_and_low_means_every_command_is_allow_listed(command: str) -> None:
    assessment = classify_command(command)
    assert assessment.reason
    if assessment.level is RiskLevel.LOW:
        parsed = parse_command(command)
        assert parsed.error is None
        assert not (parsed.expansions or parsed.substitutions or parsed.grouping or parsed.compound)
        assert all(c.words[0] in ALLOWED and not c.assignments for c in parsed.commands if c.words)
