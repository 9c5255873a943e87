"""What rules see of a call: resolved paths and the normalized simple commands of a shell line."""

from __future__ import annotations

from pathlib import Path

import pytest

from quorum.domain.tools import ToolCall
from quorum.infrastructure.review.call_viewer import WorkspaceCallViewer, command_view
from quorum.infrastructure.tools.builtin import BUILTIN_TOOLS

TOOLS = {t.name: t for t in BUILTIN_TOOLS}


@pytest.mark.parametrize(
    "spelling",
    [" rm x", "\\rm x", '"rm" x', "r''m x", "/bin/rm x", "command rm x", "env rm x", "nice rm x", "sh -c 'rm x'"],
)
def test_every_spelling_of_rm_shows_the_program_rm(spelling: str) -> None:
    assert "rm x" in command_view(spelling).forms


def test_compound_lines_show_each_simple_command_and_unsafe_ones_are_incomplete() -> None:
    assert command_view("make test; touch X").forms == ("make test", "touch X")
    assert command_view("sudo make test").forms == ("make test", "sudo make test")
    assert command_view("make test").complete
    for unsafe in ("make test > out", "make test $(id)", "A=1 make test", "make test `id`", "make 'test"):
        assert not command_view(unsafe).complete, unsafe
    assert command_view("make test 2>&1 >/dev/null").complete


def test_paths_resolve_like_the_tools(tmp_path: Path) -> None:
    ws = tmp_path / "ws"
    (ws / "secrets").mkdir(parents=True)
    (ws / "alias").symlink_to(ws / "secrets", target_is_directory=True)
    viewer = WorkspaceCallViewer(ws)

    def path_view(path: str) -> tuple[tuple[str, ...], bool]:
        call = ToolCall(native_id="c", name="write_file", arguments={"path": path, "content": ""})
        view = viewer.view(call, TOOLS["write_file"])["path"]
        return view.forms, view.complete

    for alias in ("./secrets/x", "docs/../secrets/x", str(ws / "secrets" / "x"), "alias/x", "secrets//x"):
        assert path_view(alias) == (("secrets/x",), True), alias
    forms, complete = path_view("../outside")
    assert not complete and forms == (str((tmp_path / "outside").resolve()),)
