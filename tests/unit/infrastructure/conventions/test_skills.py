"""Skills: only the front matter is read to list them; load returns the body and the files beside it."""

from __future__ import annotations

import asyncio
from pathlib import Path

from quorum.domain.tools import ToolCall
from quorum.infrastructure.conventions.skill_tool import SkillToolSource
from quorum.infrastructure.conventions.skills import HEAD_LIMIT, SkillDir, find_skills, load, skill_places


def _skill(folder: Path, front: str, body: str = "BODY-MARKER\n") -> None:
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\n{front}\n---\n{body}")


def test_listing_reads_the_front_matter_only_and_load_gives_the_body_and_files(tmp_path: Path) -> None:
    workspace = tmp_path / "ws"
    (workspace / ".git").mkdir(parents=True)
    folder = workspace / ".agents" / "skills" / "deploy"
    _skill(folder, "name: deploy\ndescription: Deploy the app to staging", "Run scripts/go.sh.\n" + "x" * HEAD_LIMIT)
    (folder / "scripts").mkdir()
    (folder / "scripts" / "go.sh").write_text("echo go")

    skills = find_skills(skill_places(workspace, None))

    (skill,) = skills.skills
    assert (skill.name, skill.description, skill.source) == ("deploy", "Deploy the app to staging", "workspace")
    assert skills.prompt_section().endswith("- deploy: Deploy the app to staging")
    assert "Run scripts" not in skills.prompt_section()
    loaded = load(skill, workspace)
    assert loaded.startswith("Run scripts/go.sh.") and "- .agents/skills/deploy/scripts/go.sh" in loaded


def test_order_of_places_duplicates_and_problems(tmp_path: Path) -> None:
    _skill(tmp_path / "a" / "one", "name: one\ndescription: first")
    _skill(tmp_path / "b" / "one", "name: one\ndescription: second")
    _skill(tmp_path / "b" / "nodesc", "name: nodesc")
    _skill(tmp_path / "b" / "bad", "name: 'has spaces'\ndescription: x")
    skills = find_skills([SkillDir(tmp_path / "a", tmp_path, "workspace"), SkillDir(tmp_path / "b", None, "user")])
    assert [(s.name, s.description) for s in skills.skills] == [("one", "first")]
    assert len(skills.problems) == 2


def test_a_skill_folder_linked_out_of_the_repository_is_not_read(tmp_path: Path) -> None:
    _skill(tmp_path / "outside" / "evil", "name: evil\ndescription: SECRET-MARKER")
    (tmp_path / "repo" / "skills").mkdir(parents=True)
    (tmp_path / "repo" / "skills" / "evil").symlink_to(tmp_path / "outside" / "evil")
    skills = find_skills([SkillDir(tmp_path / "repo" / "skills", tmp_path / "repo", "workspace")])
    assert skills.skills == () and "outside the repository" in skills.problems[0]


def test_the_tool_answers_a_body_an_unknown_name_and_is_offered_only_with_skills(tmp_path: Path) -> None:
    _skill(tmp_path / "skills" / "lint", "name: lint\ndescription: Lint the code")
    source = SkillToolSource(find_skills([SkillDir(tmp_path / "skills", tmp_path, "workspace")]), tmp_path)
    (tool,) = asyncio.run(source.list_tools())
    assert tool.name == "load_skill" and tool.brief and tool.risk == "low"
    found = asyncio.run(source.execute(ToolCall(id="1", name="load_skill", arguments={"name": "lint"})))
    assert not found.is_error and found.output == "BODY-MARKER"
    missing = asyncio.run(source.execute(ToolCall(id="2", name="load_skill", arguments={"name": "nope"})))
    assert missing.is_error and "lint" in missing.output
    assert asyncio.run(SkillToolSource(find_skills([]), tmp_path).list_tools()) == ()
