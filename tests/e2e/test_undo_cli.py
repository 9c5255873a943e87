"""``quorum undo`` as users meet it: a run approved with --yes changes files with the file tools and with
commands (rm, sed -i, mv, mkdir -p, chmod +x); undo puts the workspace back file by file, content,
mode and existence, and refuses (exit 1, nothing changed) when a file changed since the run."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path
from typing import Any

from tests.e2e.conftest import Cli


def call(name: str, arguments: dict[str, Any], call_id: str) -> dict[str, Any]:
    return {"name": name, "arguments": arguments, "id": call_id}


def command(line: str, call_id: str) -> dict[str, Any]:
    return call("run_command", {"command": line}, call_id)


SCRIPT = {
    "turns": [
        {"tool_calls": [call("read_file", {"path": "edit.txt"}, "r1"), call("read_file", {"path": "over.txt"}, "r2")]},
        {
            "tool_calls": [
                call("write_file", {"path": "new.txt", "content": "brand new\n"}, "w1"),
                call("edit_file", {"path": "edit.txt", "old_text": "two", "new_text": "TWO"}, "e1"),
                call("write_file", {"path": "over.txt", "content": "overwritten\n"}, "w2"),
            ]
        },
        {"tool_calls": [command("rm gone.txt", "c1"), command("sed -i s/alpha/beta/ sed.txt", "c2")]},
        {
            "tool_calls": [
                command("mv moved.txt moved2.txt", "c3"),
                command("mkdir -p d/e && echo > d/e/x", "c4"),
                command("chmod +x script.sh", "c5"),
                command("rm -r olddir", "c6"),
            ]
        },
        {"text": "done"},
    ]
}

CHANGED = frozenset(
    [
        "new.txt",
        "edit.txt",
        "over.txt",
        "gone.txt",
        "sed.txt",
        "moved.txt",
        "moved2.txt",
        "d/e/x",
        "script.sh",
        "olddir/f.txt",
    ]
)
"""Every file the script's run creates, modifies or deletes."""

Snapshot = dict[str, tuple[str, int, bytes]]


def snapshot(root: Path) -> Snapshot:
    """Every path under ``root``: kind, mode and content (a link's target), ``.git`` left out."""
    found: Snapshot = {}
    for directory, dirs, files in os.walk(root):
        for name in dirs + files:
            path = Path(directory, name)
            st = path.lstat()
            relative = str(path.relative_to(root))
            if stat.S_ISLNK(st.st_mode):
                found[relative] = ("link", 0, os.readlink(path).encode())
            elif stat.S_ISDIR(st.st_mode):
                found[relative] = ("dir", stat.S_IMODE(st.st_mode), b"")
            else:
                found[relative] = ("file", stat.S_IMODE(st.st_mode), path.read_bytes())
    return found


def prepared(cli: Cli) -> Snapshot:
    cli.write("s.json", json.dumps(SCRIPT))
    cli.write("keep.txt", "keep\n")
    cli.write("edit.txt", "one\ntwo\n")
    cli.write("over.txt", "old\n")
    cli.write("gone.txt", "bye\n")
    cli.write("sed.txt", "alpha\n")
    cli.write("moved.txt", "move me\n")
    cli.write("script.sh", "echo hi\n").chmod(0o644)
    cli.write("olddir/f.txt", "in a directory\n")
    os.symlink("keep.txt", cli.workspace / "link")
    return snapshot(cli.workspace)


def ran(cli: Cli) -> tuple[str, list[dict[str, Any]]]:
    result = cli("run", "--yes", "--json", "--model", "scripted:s.json", "change things")
    assert result.code == 0, result.stderr
    events = result.events()
    results = {e["call_id"]: e for e in events if e["type"] == "tool_result"}
    assert all(not r["is_error"] for r in results.values()), results
    return events[0]["run_id"], events


def test_undo_puts_back_every_file_the_run_changed_and_undo_of_undo_redoes(cli: Cli) -> None:
    before = prepared(cli)
    run_id, events = ran(cli)
    after = snapshot(cli.workspace)
    assert after["d/e/x"][2] == b"\n" and after["script.sh"][1] & 0o100 and "gone.txt" not in after

    checkpoints = [e for e in events if e["type"] == "checkpoint"]
    assert {c["call_ids"][0] for c in checkpoints} == {"w1", "e1", "w2", "c1", "c2", "c3", "c4", "c5", "c6"}
    named = {path for c in checkpoints for key in ("created", "modified", "deleted") for path in c[key]}
    assert named == CHANGED

    dry = cli("undo", "--dry-run")
    assert dry.code == 0, dry.stderr
    for path in CHANGED:
        assert path in dry.stdout
    assert "removed   new.txt" in dry.stdout and "recreated gone.txt" in dry.stdout
    assert "restored  script.sh" in dry.stdout and "mode 0755 → 0644" in dry.stdout
    assert "-beta" in dry.stdout and "+alpha" in dry.stdout  # the diff of a text file
    assert snapshot(cli.workspace) == after

    undone = cli("undo", "--yes")
    assert undone.code == 0, undone.stderr
    assert snapshot(cli.workspace) == before  # content, mode, existence; d/ and d/e/ removed
    assert run_id in undone.stdout

    redone = cli("undo", "--yes")  # the last run here is now the undo: undoing it redoes
    assert redone.code == 0, redone.stderr
    assert snapshot(cli.workspace) == after


def test_undo_refuses_a_file_edited_since_the_run_and_force_restores_it(cli: Cli) -> None:
    before = prepared(cli)
    run_id, _ = ran(cli)
    (cli.workspace / "sed.txt").write_text("edited by hand\n")
    edited = snapshot(cli.workspace)

    refused = cli("undo", run_id, "--yes")
    assert refused.code == 1
    assert "sed.txt" in refused.stderr and "refused" in refused.stderr
    assert snapshot(cli.workspace) == edited

    forced = cli("undo", run_id, "--yes", "--force")
    assert forced.code == 0, forced.stderr
    assert snapshot(cli.workspace) == before


def test_undo_to_a_call_restores_the_state_before_that_call_only(cli: Cli) -> None:
    before = prepared(cli)
    run_id, _ = ran(cli)
    after = snapshot(cli.workspace)

    result = cli("undo", run_id, "--to", "c3", "--yes")
    assert result.code == 0, result.stderr
    now = snapshot(cli.workspace)
    for undone in ("moved.txt", "script.sh", "olddir", "olddir/f.txt"):  # c3..c6 undone
        assert now[undone] == before[undone]
    assert "moved2.txt" not in now and "d" not in now
    for kept in ("new.txt", "edit.txt", "over.txt", "sed.txt"):  # w1..c2 kept
        assert now[kept] == after[kept]
    assert "gone.txt" not in now


def test_undo_says_what_is_wrong_without_a_traceback(cli: Cli) -> None:
    nothing = cli("undo", "--yes")
    assert nothing.code == 2 and "nothing to undo" in nothing.stderr and "Traceback" not in nothing.stderr
    prepared(cli)
    run_id, _ = ran(cli)
    unknown = cli("undo", run_id, "--to", "no-such-call", "--yes")
    assert unknown.code == 2 and "no-such-call" in unknown.stderr
    cli.write("quorum.toml", "[checkpoints]\nenabled = false\n")
    disabled = cli("undo", "--yes")
    assert disabled.code == 2 and "checkpoints are disabled" in disabled.stderr
