"""The shell parser: what really runs, wherever it hides, and never an exception."""

from __future__ import annotations

import sys
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from quorum.infrastructure.tools.shell.syntax import ParsedCommand, Redirection, parse_command

RUNS_RM = [
    " rm",
    "\\rm",
    '"rm"',
    "r''m",
    "ls && rm x",
    "ls || rm x",
    "ls | rm x",
    "ls; rm x",
    "ls & rm x",
    "ls\nrm x",
    "/bin/rm x",
    "command rm x",
    "builtin rm x",
    "exec rm x",
    "env -i FOO=1 rm x",
    "env -u HOME -- rm x",
    "env -S 'rm -f' x",
    "/usr/bin/env rm x",
    "xargs -0 rm",
    "xargs -n 1 -I{} rm {}",
    "sudo -u x rm",
    "sudo -- rm x",
    "doas -u root rm x",
    "timeout 5 rm x",
    "timeout -s KILL 5 rm x",
    "nice -n 5 rm",
    "nice rm",
    "ionice -c 3 rm x",
    "nohup rm x",
    "time rm x",
    "stdbuf -oL rm x",
    "setsid rm x",
    "chroot . rm x",
    "sudo env nice -n1 rm x",
    "echo $(rm x)",
    "echo `rm x`",
    'echo "$(rm x)"',
    "echo $(echo $(rm x))",
    "echo ${x:-$(rm x)}",
    "cat <(rm x)",
    "(cd a; rm x)",
    "{ rm x; }",
    "sh -c 'rm x'",
    'bash -lc "rm x"',
    "dash -e -c 'ls; rm x'",
    "eval rm x",
    "eval 'ls && rm x'",
    "find . -exec rm {} \\;",
    "find . -execdir rm {} +",
    "find . -name x -ok rm {} ';'",
    "if true; then rm x; fi",
    "while false; do rm x; done",
    "for f in a b; do rm $f; done",
    "case x in x) rm x;; esac",
    "f() { rm x; }",
    "! rm x",
    "cat <<EOF\n$(rm x)\nEOF",
    "ls \\\n&& rm x",
]


@pytest.mark.parametrize("text", RUNS_RM)
def test_finds_the_rm_wherever_it_hides(text: str) -> None:
    parsed = parse_command(text)
    assert parsed.error is None
    assert "rm" in [command.program for command in parsed.commands], parsed.commands


def test_find_delete_runs_find_only() -> None:
    parsed = parse_command("find . -delete")
    assert [command.program for command in parsed.commands] == ["find"]


@pytest.mark.parametrize(
    ("text", "argv"),
    [
        ("sudo -u x rm -rf /", ("rm", "-rf", "/")),
        ("env -i FOO=1 rm x", ("rm", "x")),
        ("timeout --signal=KILL 5 nice -n 5 ls -l", ("ls", "-l")),
        ("xargs -0 -P4 grep -l x", ("grep", "-l", "x")),
        ("'/bin/ls' 'a b'", ("ls", "a b")),
    ],
)
def test_argv_starts_at_the_real_program(text: str, argv: tuple[str, ...]) -> None:
    (command,) = parse_command(text).commands
    assert command.argv == argv
    assert command.program == argv[0]


def test_words_and_assignments_are_split() -> None:
    (command,) = parse_command("A=1 B='x y' env C=2 ls").commands
    assert command.assignments == ("A=1", "B=x y")
    assert command.words == ("env", "C=2", "ls")
    assert command.program == "ls"


def test_only_assignments_have_no_program() -> None:
    (command,) = parse_command("A=1").commands
    assert command.program == ""
    assert command.argv == ()


def test_quoted_name_is_not_an_assignment() -> None:
    (command,) = parse_command('"A"=1 ls').commands
    assert command.words == ("A=1", "ls")


@pytest.mark.parametrize(
    ("text", "redirections"),
    [
        ("ls 2>&1 >/dev/null", (Redirection(">&", 2, "1"), Redirection(">", None, "/dev/null"))),
        ("echo x>f", (Redirection(">", None, "f"),)),
        ("cat 0</etc/passwd", (Redirection("<", 0, "/etc/passwd"),)),
        ("ls &>>'out file'", (Redirection("&>>", None, "out file"),)),
        ("cat <<'EOF'\nbody\nEOF", (Redirection("<<", None, ""),)),
        ("cat <<< word", (Redirection("<<<", None, "word"),)),
        ("cat <>f", (Redirection("<>", None, "f"),)),
        ("echo x >|f", (Redirection(">|", None, "f"),)),
    ],
)
def test_redirections(text: str, redirections: tuple[Redirection, ...]) -> None:
    (command,) = parse_command(text).commands
    assert command.redirections == redirections


def test_here_document_bodies_are_not_commands() -> None:
    parsed = parse_command("cat <<EOF\nrm -rf x\nEOF\nls")
    assert [c.program for c in parsed.commands] == ["cat", "ls"]
    assert not parsed.expansions


def test_quoted_here_document_does_not_expand() -> None:
    parsed = parse_command("cat <<'EOF'\n$(rm x)\nEOF")
    assert [c.program for c in parsed.commands] == ["cat"]
    assert not parsed.substitutions


def test_quotes_and_escapes_are_removed() -> None:
    (command,) = parse_command('echo \'a b\' "c \\" \\$d" e\\ f g\\\nh').commands
    assert command.words == ("echo", "a b", 'c " $d', "e f", "gh")


def test_comments_start_only_at_a_word_start() -> None:
    assert [c.words for c in parse_command("ls # rm x").commands] == [("ls",)]
    assert [c.program for c in parse_command("ls#;rm x").commands] == ["ls#", "rm"]


@pytest.mark.parametrize(
    ("text", "flag"),
    [
        ("echo $HOME", "expansions"),
        ('echo "${x}"', "expansions"),
        ("echo $((1+2))", "expansions"),
        ("echo $'\\x41'", "expansions"),
        ("echo $", "expansions"),
        ("echo $(id)", "substitutions"),
        ("echo `id`", "substitutions"),
        ("cat <(ls)", "substitutions"),
        ("(ls)", "grouping"),
        ("{ ls; }", "grouping"),
        ("ls *.py", "globs"),
        ("ls a?", "globs"),
        ("ls [ab]", "globs"),
        ("if ls; then :; fi", "compound"),
        ("for x in a; do :; done", "compound"),
        ("f() { :; }", "compound"),
        ("echo {a,b}", "braces"),
        ("echo {1..3}", "braces"),
    ],
)
def test_flags(text: str, flag: str) -> None:
    parsed = parse_command(text)
    assert parsed.error is None
    assert getattr(parsed, flag) is True


@pytest.mark.parametrize(
    "text", ["echo '$HOME'", "echo \\$HOME", "ls '*.py'", "ls \\*", "echo '{a,b}'", "find . -name '*.py'", "ls"]
)
def test_quoted_text_sets_no_flags(text: str) -> None:
    parsed = parse_command(text)
    assert not (parsed.expansions or parsed.substitutions or parsed.globs or parsed.braces or parsed.grouping)


def test_glob_patterns_escape_quoted_specials() -> None:
    assert parse_command("ls '*'.py *'?' .* '[a'*").glob_patterns == ("*\\?", ".*", "\\[a*")


def test_case_patterns_are_not_pathname_globs() -> None:
    assert parse_command("case x in *.py) ls;; esac").glob_patterns == ()


def test_nested_marks_inner_commands() -> None:
    parsed = parse_command("ls; (pwd); echo $(id); sh -c date")
    nested = {c.program: c.nested for c in parsed.commands}
    assert nested == {"ls": False, "pwd": True, "id": True, "echo": False, "sh": False, "date": True}


@pytest.mark.parametrize(
    "text",
    [
        "echo 'x",
        'echo "x',
        "echo $(ls",
        "echo `ls",
        "echo ${x",
        "(ls",
        "ls)",
        "{ ls;",
        "ls >",
        "case x in x) ls;;",
        "sh -c 'echo (x'",
        "echo $(" * 40,
    ],
)
def test_malformed_commands_report_an_error(text: str) -> None:
    assert parse_command(text).error


def test_nested_shells_are_depth_bounded() -> None:
    assert parse_command("eval " * 30 + "ls").error
    assert parse_command("sh -c " * 30 + "ls").error is None  # only the first -c takes a script


def test_parameter_expansions_are_depth_bounded() -> None:
    assert "deeply" in (parse_command("${x:-" * 40 + "}" * 40).error or "")


@given(st.text(max_size=200))
@settings(max_examples=400, deadline=None)
@example("echo ²>x")  # a Unicode digit is a word, not a file descriptor number
def test_never_raises(text: str) -> None:
    assert isinstance(parse_command(text), ParsedCommand)


@given(st.text(alphabet="$()`'\"\\{}[]*?<>|&;# \n-=:/.cshe", max_size=120))
@settings(max_examples=600, deadline=None)
def test_never_raises_on_shell_punctuation(text: str) -> None:
    assert isinstance(parse_command(text), ParsedCommand)


@pytest.mark.parametrize("unit", ["$(", "`", "${", "$((", "'", '"', "(", "{ ", "sh -c ", "eval "])
def test_is_linear_on_pathological_input(unit: str) -> None:
    # Counted in executed lines, not seconds: the same on a loaded machine, and 10× the input
    # costs about 10× the lines when parsing is linear (a quadratic parser would cost about 100×).
    small, large = _lines_executed(unit * 300), _lines_executed(unit * 3000)
    assert large < 20 * small


def _lines_executed(text: str) -> int:
    """How many Python lines ``parse_command(text)`` executes (a deterministic measure of its work)."""
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return tracer

    sys.settrace(tracer)
    try:
        parse_command(text)
    finally:
        sys.settrace(None)
    return count
