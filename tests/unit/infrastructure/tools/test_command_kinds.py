"""``command_kind``: why a command is high-risk; only ``writes_workspace`` may run in the write sandbox."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from quorum.infrastructure.tools.shell.kinds import command_kind
from quorum.infrastructure.tools.shell.writers import sed_script_problem

WRITES_ONLY = [
    "sed -i s/a/b/ f.txt",
    "sed -i -e 's/a/b/g' -e '3d' f.txt",
    "sed -i.bak '3d;s|x|y|2' f.txt",
    "echo hi > f",
    "echo hi>>f",
    "printf 'x\\n' > sub/f",
    "mkdir -p d && echo > d/x",
    "mkdir -p a/b/c",
    "touch new.txt",
    "rm old.txt",
    "rm -r build",
    "rmdir empty",
    "cp a.txt b.txt",
    "mv a.txt b.txt",
    "chmod +x run.sh",
    "chmod 755 run.sh",
    "printf x | tee out.txt",
    "cd sub && touch x",
    "cat a.txt > b.txt",
    "> empty.txt",
]

HIGH_FOR_ANOTHER_REASON = [
    # privilege
    ("sudo touch x", "privilege"),
    ("doas rm f", "privilege"),
    ("chown me f", "privilege"),
    ("chmod u+s f", "privilege"),
    ("chmod 4755 f", "privilege"),
    ("chmod g=rxs f", "privilege"),
    # network
    ("curl http://127.0.0.1:8000/ > page.html", "network"),
    ("wget http://example.com", "network"),
    ("git clone https://example.com/x.git", "network"),
    ("git push", "network"),
    ("pip install requests", "network"),
    ("ssh host touch x", "network"),
    ("touch f && curl -d @f http://127.0.0.1:1/", "network"),
    # outside the workspace
    ("touch ../outside", "outside_workspace"),
    ("echo x > /tmp/x", "outside_workspace"),
    ("echo x > ~/x", "outside_workspace"),
    ("cp /etc/passwd .", "outside_workspace"),
    ("mv f ../../f", "outside_workspace"),
    ("rm -rf .*", "outside_workspace"),
    ("mkdir -p a/../../b", "outside_workspace"),
    ("cp -t/tmp f", "outside_workspace"),
    ("sed -i s/a/b/ ../f", "outside_workspace"),
    # Quorum's own files and the repository
    ("rm -rf .git", "protected_path"),
    ("echo x > .git/hooks/pre-commit", "protected_path"),
    ("echo '[review]' > quorum.toml", "protected_path"),
    ("touch .quorum/hooks/x", "protected_path"),
    ("sed -i s/a/b/ *", "protected_path"),
    ("cp sub/x .git/config", "protected_path"),
    # what runs cannot be known before it runs
    ("echo x > $HOME/x", "shell_features"),
    ("touch $(cat name)", "shell_features"),
    ("(touch x)", "shell_features"),
    ("for f in a b; do touch $f; done", "shell_features"),
    ("touch {a,b}", "shell_features"),
    ("LD_PRELOAD=x.so touch f", "shell_features"),
    ("cat <<EOF > f\nx\nEOF", "shell_features"),
    ("touch 'unterminated", "shell_features"),
    # programs on neither list, or used with options their rule refuses
    ('python -c \'open("f","w")\'', "unknown_program"),
    ("sh -c 'touch x'", "unknown_program"),
    ("env touch f", "unknown_program"),
    ("xargs touch < list", "unknown_program"),
    ("./build.sh", "unknown_program"),
    ("/bin/touch f", "unknown_program"),
    ("ln -s target link", "unknown_program"),
    ("cp -s a b", "unknown_program"),
    ("cp --symbolic-link a b", "unknown_program"),
    ("touch -r ref f", "unknown_program"),
    ("sed s/a/b/ f", "unknown_program"),
    ("sed -i 's/a/b/w out' f", "unknown_program"),
    ("sed -i 's/a/b/e' f", "unknown_program"),
    ("sed -i 'e touch x' f", "unknown_program"),
    ("sed -i '1r other' f", "unknown_program"),
    ("sed -i -f script.sed f", "unknown_program"),
    ("sed -i --follow-symlinks s/a/b/ f", "unknown_program"),
    ("sort -o out f", "unknown_program"),
    ("find . -delete", "unknown_program"),
    ("git commit -m x", "unknown_program"),
    ("make", "unknown_program"),
    ("npm test", "network"),
]


@pytest.mark.parametrize("command", WRITES_ONLY)
def test_a_command_that_only_writes_workspace_files_is_writes_workspace(command: str) -> None:
    assert command_kind(command).kind == "writes_workspace", command_kind(command)


@pytest.mark.parametrize(("command", "kind"), HIGH_FOR_ANOTHER_REASON)
def test_a_command_with_any_other_effect_says_which(command: str, kind: str) -> None:
    found = command_kind(command)
    assert found.kind == kind, found
    assert found.reason


def test_read_only_commands_are_read_only() -> None:
    for command in ("ls -la", "cat f | grep x", "git status", "echo x > /dev/null"):
        assert command_kind(command).kind == "read_only", command


@pytest.mark.parametrize(
    "script",
    ["s/a/b/", "s|a|b|g", "3d", "$d", "/x/d", "1,/end/s/a/b/gI", "s/a\\/b/c/;s/x/y/2", "/a/!d", " s/a/b/ ; 2d "],
)
def test_sed_scripts_that_only_substitute_or_delete_are_accepted(script: str) -> None:
    assert sed_script_problem(script) is None


@pytest.mark.parametrize(
    "script", ["s/a/b/w f", "s/a/b/e", "e ls", "r f", "w f", "R f", "W f", "1q", "s/a/b", "s\\a\\b\\", "y/a/b/"]
)
def test_sed_scripts_that_write_read_or_run_are_refused(script: str) -> None:
    assert sed_script_problem(script) is not None


@given(st.text(max_size=60))
def test_command_kind_never_raises(command: str) -> None:
    assert command_kind(command).kind
