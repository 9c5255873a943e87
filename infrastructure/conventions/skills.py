"""Skills: folders with a ``SKILL.md`` (front matter ``name``, ``description``; then instructions).

Found in ``.agents/skills/``, ``.quorum/skills/`` (the workspace's) and the user config dir's
``skills/``, the first place naming a skill winning. Finding them reads only each ``SKILL.md``'s
head (``HEAD_LIMIT`` bytes, enough for the front matter): the system prompt lists name and
description, and the body is read when the model asks for it (``load``, the ``load_skill`` tool).
"""

from __future__ import annotations

import os
import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from quorum.infrastructure.config.workspace import repository_levels
from quorum.infrastructure.conventions.files import Unreadable, read_inside
from quorum.infrastructure.conventions.front_matter import FrontMatterError, one_line, split

SKILL_FILE = "SKILL.md"
HEAD_LIMIT = 8 * 1024
"""Bytes of a ``SKILL.md`` read to find its front matter."""
BODY_LIMIT = 64 * 1024
"""Bytes of a ``SKILL.md`` ``load`` returns at most (cut with a note)."""
LISTED_FILES = 200
"""Files beside a ``SKILL.md`` that ``load`` lists at most."""
DESCRIPTION_CHARS = 300

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")


@dataclass(frozen=True)
class SkillDir:
    """Where skills are looked for: ``directory``, links followed only inside ``root`` (None: anywhere)."""

    directory: Path
    root: Path | None
    source: str


@dataclass(frozen=True)
class Skill:
    """One skill: its name and description (from the front matter), its folder and where it was found."""

    name: str
    description: str
    directory: Path
    root: Path | None
    source: str


@dataclass(frozen=True)
class Skills:
    """The skills found, in order, and the folders refused (each with its reason)."""

    skills: tuple[Skill, ...] = ()
    problems: tuple[str, ...] = ()

    def get(self, name: str) -> Skill | None:
        """The skill named ``name``, or None."""
        return next((skill for skill in self.skills if skill.name == name), None)

    def prompt_section(self) -> str:
        """The system prompt's list of skills (names and descriptions); empty without skills."""
        if not self.skills:
            return ""
        lines = [f"- {skill.name}: {skill.description}" for skill in self.skills]
        return "\n".join(
            ["# Skills", "", "When a task matches a skill, call load_skill with its name for its instructions.", *lines]
        )


def skill_places(workspace: Path, config_dir: Path | None) -> list[SkillDir]:
    """Where skills are found: ``.agents/skills``, ``.quorum/skills`` (the workspace's), the user's ``skills``.

    Links in the workspace's are followed only inside its repository (``repository_levels``).
    """
    workspace = workspace.resolve()
    root = repository_levels(workspace)[-1]
    places = [
        SkillDir(workspace / ".agents" / "skills", root, "workspace"),
        SkillDir(workspace / ".quorum" / "skills", root, "workspace"),
    ]
    if config_dir is not None:
        places.append(SkillDir(config_dir / "skills", None, "user"))
    return places


def find_skills(places: Sequence[SkillDir]) -> Skills:
    """The skills in ``places`` (see the module docstring)."""
    found: list[Skill] = []
    problems: list[str] = []
    for place in places:
        for folder in _folders(place.directory):
            try:
                skill = _read(folder, place)
            except (Unreadable, FrontMatterError, ValueError) as error:
                problems.append(f"{folder}: {error}")
                continue
            if skill is not None and all(skill.name != other.name for other in found):
                found.append(skill)
    return Skills(tuple(found), tuple(problems))


def load(skill: Skill, workspace: Path) -> str:
    """What ``load_skill`` answers: the body of ``skill``'s ``SKILL.md``, then the files beside it.

    Files inside ``workspace`` are listed relative to it (``read_file`` reads them); others by
    their full path, with a note that ``read_file`` cannot reach them.

    Raises:
        Unreadable: the ``SKILL.md`` is gone, leads out of its root, or is not a regular file.
        FrontMatterError: its front matter no longer parses.
    """
    read = read_inside(skill.directory / SKILL_FILE, skill.root, BODY_LIMIT)
    _, body = split(read.text)
    parts = [body.strip()]
    if read.cut:
        parts.append(f"[SKILL.md cut at {BODY_LIMIT // 1024} KiB]")
    files = _beside(skill.directory)
    if files:
        shown, outside = _shown(files, workspace)
        note = " (outside the workspace: read_file cannot read them)" if outside else ""
        parts.append(f"Files of this skill{note}:\n" + "\n".join(f"- {path}" for path in shown))
    return "\n\n".join(part for part in parts if part)


def _folders(directory: Path) -> list[Path]:
    try:
        return sorted(path for path in directory.iterdir() if os.path.lexists(path / SKILL_FILE))
    except OSError:  # missing, not a directory
        return []


def _read(folder: Path, place: SkillDir) -> Skill | None:
    if place.root is not None and not folder.resolve().is_relative_to(place.root.resolve()):
        raise ValueError("links outside the repository; not read")
    read = read_inside(folder / SKILL_FILE, place.root, HEAD_LIMIT)
    meta, _ = split(read.text)
    name = str(meta.get("name") or folder.name).strip()
    if not NAME.fullmatch(name):
        raise ValueError(f"{name!r} is not a skill name (letters, digits, '-', '_', '.'; 64 at most)")
    description = one_line(meta.get("description") or "", DESCRIPTION_CHARS)
    if not description:
        raise ValueError("SKILL.md has no description in its front matter; the model could not tell when to use it")
    return Skill(name, description, folder, place.root, place.source)


def _beside(folder: Path) -> list[Path]:
    """The files under ``folder`` but ``SKILL.md``, at most ``LISTED_FILES``; links listed, never followed."""
    found: list[Path] = []
    for top, dirs, names in os.walk(folder, followlinks=False):
        dirs[:] = sorted(name for name in dirs if not name.startswith("."))
        found += [Path(top, name) for name in sorted(names) if Path(top, name) != folder / SKILL_FILE]
        if len(found) >= LISTED_FILES:
            return found[:LISTED_FILES]
    return found


def _shown(files: list[Path], workspace: Path) -> tuple[list[str], bool]:
    root = workspace.resolve()
    shown: list[str] = []
    outside = False
    for path in files:
        if path.parent.resolve().is_relative_to(root):
            shown.append((path.parent.resolve() / path.name).relative_to(root).as_posix())
        else:
            shown.append(str(path))
            outside = True
    return shown, outside
