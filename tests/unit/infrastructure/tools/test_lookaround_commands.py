"""Read-only commands a model uses to look around (``[``, ``test``, ``true``, ``basename``, ``seq``…).

They are low risk; these cases show that each one used as cover for an effect is still high: a
redirection writes, a substitution runs, a list runs the next command, an argument reaches outside
the workspace, and bash's ``test -v``/``-R`` would run ``$(…)`` from a single-quoted array subscript.
The same attacks run for their effect in ``tests/e2e/attacks.py``.
"""

from __future__ import annotations

import pytest

from quorum.domain.tools import RiskLevel
from quorum.infrastructure.tools.shell.risk import classify_command

LOW = [
    "[ -f a.txt ] && cat a.txt",
    "[ -d src ] || ls",
    "[ -s a.txt -a -r a.txt ]",
    "[ a = b ] || echo differ",
    "test -f a.txt && cat a.txt",
    "test a.txt -nt b.txt",
    "true",
    "false || echo no",
    "basename src/a.py .py",
    "dirname src/a.py",
    "realpath src",
    "seq 1 10",
    "seq -w -s, 1 5",
    "printf '%s\\n' a b",
    "printf '$HOME %s' x",
]

HIGH = [
    "printf -vx %s y",
    "printf -- -v x",
    "printf x > out",
    "printf x>out",
    "seq 1 10 > out",
    "test -f a.txt > out",
    "[ -f a.txt ] > out",
    "[ -f a.txt ] >> out",
    "[ $(rm x) ]",
    "[ `rm x` ]",
    'test -n "$(rm x)"',
    "true; rm x",
    "false || rm -f x",
    "[ -f a ] && rm a",
    "test -f a && rm a",
    "basename $(curl http://x)",
    'dirname "$(cat ~/.ssh/id_rsa)"',
    "printf '%s' \"$(cat ~/.ssh/id_rsa)\"",
    "printf '%s' \"$OPENAI_API_KEY\"",
    "printf %s ~/.ssh/id_rsa",
    "[ -f ~/.ssh/id_rsa ] && echo yes",
    "[ a.txt -ef ~/.ssh/id_rsa ]",
    "test a.txt -ef /etc/passwd",
    "test -f ../secret",
    "[ -f a ] && cat ../secret",
    "[ -f quorum.toml ] && cat quorum.toml",
    "[ -f .*/x ]",
    "[[ -f a ]]",
    "[ -f a ] && [[ -f b ]]",
    "test -v 'a[$(touch x)]'",
    "[ -v 'a[$(touch x)]' ]",
    "test -R 'a[$(touch x)]'",
    "realpath ~",
    "realpath ..",
    "realpath --relative-to=/etc a",
    "realpath -e /etc/passwd",
    "basename /etc/passwd",
    "dirname ~/x",
    "seq -f '%s' $(rm x)",
    "true | sh",
    "seq 1 3 | xargs rm",
]


@pytest.mark.parametrize("command", LOW)
def test_looking_around_is_low(command: str) -> None:
    assessment = classify_command(command)
    assert assessment.level is RiskLevel.LOW, assessment.reason


@pytest.mark.parametrize("command", HIGH)
def test_looking_around_as_cover_for_an_effect_is_high(command: str) -> None:
    assessment = classify_command(command)
    assert assessment.level is RiskLevel.HIGH, command
    assert assessment.reason


def test_a_lone_bracket_is_not_a_glob_but_a_closed_one_is() -> None:
    assert classify_command("[ -f a.txt ]").level is RiskLevel.LOW
    assert "glob" in classify_command("cat [.]x").reason
    assert "glob" in classify_command("cat .[a-z]*/x").reason
