"""The checkpoint store on real files: dedup, what is left out, oversize files, links, modes, restore."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quorum.domain.checkpoints import FileState
from quorum.infrastructure.checkpoints.restore import UnsafeRestore
from quorum.infrastructure.checkpoints.store import FileCheckpointStore


@pytest.fixture
def workspace(tmp_path: Path) -> Path:
    root = tmp_path / "ws"
    root.mkdir()
    return root


def store_of(tmp_path: Path, workspace: Path, **kwargs: object) -> FileCheckpointStore:
    return FileCheckpointStore(tmp_path / "store", workspace, **kwargs)  # type: ignore[arg-type]


def blobs(tmp_path: Path) -> list[Path]:
    return [p for p in (tmp_path / "store" / "blobs").rglob("*") if p.is_file()]


def changed(checkpoint: object) -> dict[str, str]:
    return {c.path: c.how for c in checkpoint.changes}  # type: ignore[attr-defined]


def test_the_same_content_is_stored_once_and_an_unchanged_file_is_not_stored_again(
    tmp_path: Path, workspace: Path
) -> None:
    for name in ("a.txt", "b.txt", "c/d.txt"):
        (workspace / name).parent.mkdir(parents=True, exist_ok=True)
        (workspace / name).write_text("same\n")
    store = store_of(tmp_path, workspace)
    store.baseline("r1")
    assert len(blobs(tmp_path)) == 1  # three files, one content

    (workspace / "a.txt").write_text("other\n")
    checkpoint = store.record("r1", ["c1"])
    assert changed(checkpoint) == {"a.txt": "modified"}
    assert len(blobs(tmp_path)) == 2
    assert store.record("r1", ["c2"]).changes == ()  # nothing changed: nothing recorded, nothing stored
    assert len(blobs(tmp_path)) == 2


def test_git_excluded_globs_and_the_store_itself_are_never_recorded(tmp_path: Path, workspace: Path) -> None:
    (workspace / ".git").mkdir()
    (workspace / ".git" / "HEAD").write_text("ref\n")
    (workspace / "node_modules" / "x").mkdir(parents=True)
    (workspace / "keep.txt").write_text("k\n")
    store = FileCheckpointStore(workspace / ".store", workspace, exclude=("node_modules", "*.log", "build/*"))
    store.baseline("r1")
    (workspace / ".git" / "HEAD").write_text("moved\n")
    (workspace / "node_modules" / "x" / "y.js").write_text("js\n")
    (workspace / "debug.log").write_text("log\n")
    (workspace / "build").mkdir()
    (workspace / "build" / "out.o").write_text("o\n")
    (workspace / "keep.txt").write_text("changed\n")
    assert changed(store.record("r1", ["c1"])) == {"keep.txt": "modified", "build": "created"}


def test_a_file_over_the_limit_is_recorded_without_content_and_said_unrestorable(
    tmp_path: Path, workspace: Path
) -> None:
    (workspace / "big.bin").write_bytes(b"x" * 2048)
    store = store_of(tmp_path, workspace, max_bytes=1024)
    store.baseline("r1")
    assert blobs(tmp_path) == []
    (workspace / "big.bin").write_bytes(b"y" * 4096)
    checkpoint = store.record("r1", ["c1"])
    assert changed(checkpoint) == {"big.bin": "modified"}
    assert checkpoint.unrestorable == ("big.bin",)
    assert blobs(tmp_path) == []
    store.restore({"big.bin": checkpoint.changes[0].before})  # skipped: its content was not kept
    assert (workspace / "big.bin").read_bytes() == b"y" * 4096


def test_links_are_recorded_as_links_never_followed_and_restored_as_links(tmp_path: Path, workspace: Path) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_text("outside\n")
    os.symlink(outside, workspace / "out")
    os.symlink("missing", workspace / "dangling")
    store = store_of(tmp_path, workspace)
    store.baseline("r1")
    assert blobs(tmp_path) == []  # the link's target's content is not read
    os.unlink(workspace / "out")
    os.symlink("elsewhere", workspace / "out")
    checkpoint = store.record("r1", ["c1"])
    assert changed(checkpoint) == {"out": "modified"}
    store.restore({"out": checkpoint.changes[0].before})
    assert os.readlink(workspace / "out") == str(outside)
    assert outside.read_text() == "outside\n"


def test_a_mode_change_is_a_change_and_restore_puts_back_content_and_mode(tmp_path: Path, workspace: Path) -> None:
    script = workspace / "run.sh"
    script.write_text("echo hi\n")
    script.chmod(0o644)
    store = store_of(tmp_path, workspace)
    store.baseline("r1")
    script.chmod(0o755)
    script.write_text("echo changed\n")
    checkpoint = store.record("r1", ["c1"])
    assert changed(checkpoint) == {"run.sh": "modified"}
    store.restore({"run.sh": checkpoint.changes[0].before})
    assert script.read_text() == "echo hi\n" and script.stat().st_mode & 0o777 == 0o644


def test_created_directories_and_files_go_deleted_ones_come_back(tmp_path: Path, workspace: Path) -> None:
    (workspace / "old" / "deep").mkdir(parents=True)
    (workspace / "old" / "deep" / "f.txt").write_text("f\n")
    store = store_of(tmp_path, workspace)
    store.baseline("r1")
    (workspace / "old" / "deep" / "f.txt").unlink()
    (workspace / "old" / "deep").rmdir()
    (workspace / "old").rmdir()
    (workspace / "new" / "sub").mkdir(parents=True)
    (workspace / "new" / "sub" / "x").write_text("\n")
    checkpoint = store.record("r1", ["c1"])
    store.restore({c.path: c.before for c in checkpoint.changes})
    assert (workspace / "old" / "deep" / "f.txt").read_text() == "f\n"
    assert not (workspace / "new").exists()


def test_restore_never_writes_through_a_link_or_outside_the_workspace(tmp_path: Path, workspace: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (workspace / "d").mkdir()
    (workspace / "d" / "f.txt").write_text("f\n")
    store = store_of(tmp_path, workspace)
    store.baseline("r1")
    state = store.current(["d/f.txt"])["d/f.txt"]
    assert state is not None
    (workspace / "d" / "f.txt").unlink()
    (workspace / "d").rmdir()
    os.symlink(outside, workspace / "d")  # d now leads outside
    with pytest.raises(UnsafeRestore):
        store.restore({"d/f.txt": state})
    assert list(outside.iterdir()) == []
    with pytest.raises(UnsafeRestore):
        store.restore({"../escape.txt": state})
    assert not (tmp_path / "escape.txt").exists()


def test_a_second_store_on_the_same_workspace_sees_the_first_ones_recordings(tmp_path: Path, workspace: Path) -> None:
    (workspace / "a.txt").write_text("a\n")
    first = store_of(tmp_path, workspace)
    first.baseline("r1")
    (workspace / "a.txt").write_text("b\n")
    first.record("r1", ["c1"])
    second = store_of(tmp_path, workspace)  # another process
    assert second.runs() == ["r1"]
    assert [c.call_ids for c in second.checkpoints("r1")] == [("c1",)]
    (workspace / "a.txt").write_text("c\n")
    assert changed(second.record("r2", ["c9"])) == {"a.txt": "modified"}
    assert second.runs() == ["r1", "r2"]
    before = second.checkpoints("r2")[0].changes[0].before
    assert before == FileState(kind="file", mode=before.mode, size=2, digest=before.digest)
    assert second.content("a.txt", before) == b"b\n"
