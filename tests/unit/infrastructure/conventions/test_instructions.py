"""AGENTS.md from the repository root down to the workspace, read as hostile files."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from quorum.infrastructure.conventions.files import Unreadable, read_inside
from quorum.infrastructure.conventions.instructions import LIMIT, find_instructions


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    (root / ".git").mkdir(parents=True)
    (root / "app" / "web").mkdir(parents=True)
    return root


def test_root_first_down_to_the_workspace_and_claude_md_where_no_agents_md(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("ROOT-RULES")
    (repo / "CLAUDE.md").write_text("NOT-READ: AGENTS.md is there")
    (repo / "app" / "CLAUDE.md").write_text("APP-RULES")
    (repo / "app" / "web" / "AGENTS.md").write_text("WEB-RULES")

    found = find_instructions(repo / "app" / "web")

    assert found.names == ("AGENTS.md", "app/CLAUDE.md", "app/web/AGENTS.md")
    section = found.prompt_section()
    assert section.index("ROOT-RULES") < section.index("APP-RULES") < section.index("WEB-RULES")
    assert "## app/CLAUDE.md\n\nAPP-RULES" in section and "NOT-READ" not in section
    assert not found.truncated


def test_without_a_repository_only_the_workspace_is_read(tmp_path: Path) -> None:
    (tmp_path / "AGENTS.md").write_text("PARENT")  # no .git above: not a project of its parents
    (tmp_path / "ws").mkdir()
    (tmp_path / "ws" / "AGENTS.md").write_text("HERE")
    assert find_instructions(tmp_path / "ws").names == ("AGENTS.md",)
    assert "PARENT" not in find_instructions(tmp_path / "ws").prompt_section()


def test_nothing_gives_an_empty_section(repo: Path) -> None:
    assert find_instructions(repo).prompt_section() == ""


def test_a_link_out_of_the_repository_is_not_followed(repo: Path, tmp_path: Path) -> None:
    secret = tmp_path / "secret.txt"
    secret.write_text("SECRET-MARKER")
    (repo / "AGENTS.md").symlink_to(secret)
    (repo / "app" / "AGENTS.md").symlink_to(repo / "README.md")
    (repo / "README.md").write_text("INSIDE-LINK-OK")

    found = find_instructions(repo / "app")

    assert found.names == ("app/AGENTS.md",)
    assert "SECRET-MARKER" not in found.prompt_section() and "INSIDE-LINK-OK" in found.prompt_section()
    assert found.skipped and "links outside the repository" in found.skipped[0]


def test_a_fifo_or_a_device_is_never_read(repo: Path) -> None:
    os.mkfifo(repo / "AGENTS.md")  # opening it for reading would block for ever
    (repo / "app" / "AGENTS.md").symlink_to("/dev/zero")  # outside, and endless
    found = find_instructions(repo / "app")
    assert found.names == () and len(found.skipped) == 2


def test_a_fifo_is_refused_even_when_links_may_go_anywhere(tmp_path: Path) -> None:
    os.mkfifo(tmp_path / "pipe")
    with pytest.raises(Unreadable, match="not a regular file"):
        read_inside(tmp_path / "pipe", None, 100)


def test_all_files_together_are_cut_at_32_kib_with_a_note(repo: Path) -> None:
    (repo / "AGENTS.md").write_text("A" * (LIMIT - 100) + "ROOT-END")
    (repo / "app" / "AGENTS.md").write_text("START-OF-APP" + "B" * 1000 + "APP-END")
    (repo / "app" / "web" / "AGENTS.md").write_text("WEB-NEVER-READ")

    found = find_instructions(repo / "app" / "web")

    section = found.prompt_section()
    assert found.truncated and found.names == ("AGENTS.md", "app/AGENTS.md")
    assert "ROOT-END" in section and "APP-END" not in section and "WEB-NEVER-READ" not in section
    assert "cut at 32 KiB" in section
    assert sum(len(file.text.encode()) for file in found.files) == LIMIT


def test_one_huge_file_is_read_only_up_to_the_limit(repo: Path) -> None:
    with (repo / "AGENTS.md").open("w") as file:
        file.write("HEAD-MARKER" + "x" * 10_000_000 + "TAIL-MARKER")
    found = find_instructions(repo)
    assert found.truncated and "HEAD-MARKER" in found.prompt_section()
    assert "TAIL-MARKER" not in found.prompt_section() and len(found.files[0].text) == LIMIT
