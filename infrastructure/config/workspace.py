"""Which files come with a workspace: its ``quorum.toml`` and its parents' up to the repository, and ``.quorum/``.

These are the files workspace trust is about (docs/decisions/200-workspace-trust.md): whoever wrote
the repository wrote them. ``find_workspace`` walks from the workspace directory up to the
repository root, the nearest directory holding ``.git`` (a directory, or a file in a worktree or
submodule), and no further:

- without a ``.git`` above, only the workspace directory itself (a directory under ``/tmp`` or a
  download is not a project of its parents);
- never into a directory owned by another user (git's ``safe.directory`` rule, CVE-2022-24765:
  a ``/tmp/.git`` or ``/home/.git`` someone else planted is not your repository);
- never a file the person chose (the user config, ``--config``): those are read as theirs.

Each directory of the walk gives its ``quorum.toml`` (read as configuration, the nearer overriding
the farther) and every file under its ``.quorum/`` (hooks, commands, skills, agents: not read as
configuration yet, but counted in the trust fingerprint and shown by ``quorum trust``, so a later
reader only has to read them). ``.quorum/quorum.toml`` is reserved: not read.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path

CONFIG_NAME = "quorum.toml"
QUORUM_DIR = ".quorum"
REPOSITORY_MARKER = ".git"


@dataclass(frozen=True)
class WorkspaceFiles:
    """The files a workspace brings, farthest directory first.

    Attributes:
        directory: the workspace directory (resolved): what ``quorum trust`` trusts.
        configs: the ``quorum.toml`` files read as configuration, farthest first (later wins).
        others: the files under each ``.quorum/`` (not configuration yet), farthest first.
    """

    directory: Path
    configs: tuple[Path, ...] = ()
    others: tuple[Path, ...] = ()

    @property
    def files(self) -> list[Path]:
        """Every file, in the order the fingerprint takes them: configurations, then ``.quorum/``."""
        return [*self.configs, *self.others]


def find_workspace(cwd: Path, chosen: Iterable[Path | None] = ()) -> WorkspaceFiles:
    """The files the workspace ``cwd`` brings (see the module docstring); ``chosen`` files are left out."""
    directory = cwd.resolve()
    skipped = {path.resolve() for path in chosen if path is not None}
    levels = list(reversed(_levels(directory)))
    configs = [
        level / CONFIG_NAME
        for level in levels
        if os.path.lexists(level / CONFIG_NAME) and (level / CONFIG_NAME).resolve() not in skipped
    ]
    others = [path for level in levels for path in _under(level / QUORUM_DIR)]
    return WorkspaceFiles(directory, tuple(configs), tuple(others))


def repository_levels(directory: Path) -> list[Path]:
    """``directory`` (resolved) and its parents up to the repository root, nearest first.

    The walk ``find_workspace`` makes (only ``directory`` without a ``.git`` above, never into a
    directory owned by another user); AGENTS.md files are read along it too.
    """
    return _levels(directory.resolve())


def _levels(directory: Path) -> list[Path]:
    """``directory`` and its parents up to the repository root, nearest first; only ``directory`` without one."""
    levels = [directory]
    current = directory
    while not os.path.lexists(current / REPOSITORY_MARKER):
        parent = current.parent
        if parent == current or not _own(parent):
            return [directory]
        current = parent
        levels.append(current)
    return levels


def _own(directory: Path) -> bool:
    """Whether the current user owns ``directory`` (always, where there are no user ids)."""
    getuid = getattr(os, "getuid", None)
    if getuid is None:
        return True
    try:
        return directory.stat().st_uid == getuid()
    except OSError:
        return False


def _under(top: Path) -> list[Path]:
    """Every entry under ``top`` that is not a directory, sorted; ``top`` itself when it is no directory.

    Symbolic links are listed, never followed into: a ``.quorum`` linked to ``/`` is one entry.
    """
    if not os.path.lexists(top):
        return []
    if top.is_symlink() or not top.is_dir():
        return [top]
    found: list[Path] = []
    for root, dirs, names in os.walk(top, followlinks=False):
        linked = [name for name in dirs if os.path.islink(os.path.join(root, name))]
        dirs[:] = sorted(name for name in dirs if name not in linked)
        found += [Path(root, name) for name in [*names, *linked]]
    return sorted(found)
